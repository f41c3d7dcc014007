/// <reference types="vitest/config" />
// Build config: the dashboard is served by the controller at /, so assets use
// absolute paths and nothing is fetched from the internet (no CDN, no web fonts).
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'

const configs = fileURLToPath(new URL('../configs', import.meta.url))

export default defineConfig({
  plugins: [vue()],
  resolve: { alias: { '@configs': configs } },
  server: {
    fs: { allow: ['.', configs] },
    proxy: { '/api': { target: 'http://127.0.0.1:8080', ws: true } },
  },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 800 },
  test: {
    environment: 'happy-dom',
    include: ['tests/unit/**/*.test.ts'],
  },
})
