import { createPinia } from 'pinia'
import { createApp } from 'vue'
import App from './App.vue'
import { makeRouter } from './router'
import 'uplot/dist/uPlot.min.css'
import './style.css'

const app = createApp(App)
app.use(createPinia())
app.use(makeRouter())
app.mount('#app')
