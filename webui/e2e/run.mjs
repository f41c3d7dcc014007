// `make e2e`: run the end-to-end suite with node's test runner (spec reporter).
import { spawnSync } from 'node:child_process'
import path from 'node:path'

const file = path.join(import.meta.dirname, 'dashboard.e2e.mjs')
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-timeout=150000', file], { stdio: 'inherit' })
process.exit(r.status ?? 1)
