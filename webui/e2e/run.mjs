// `make e2e`: run the end-to-end suite with node's test runner (spec reporter),
// bounded in time: after E2E_TIMEOUT_S (default 300) seconds the suite gets SIGTERM
// and stops the servers it started by their PIDs (servers.mjs) before it exits.
import { spawnSync } from 'node:child_process'
import path from 'node:path'

const file = path.join(import.meta.dirname, 'dashboard.e2e.mjs')
const limitS = Number(process.env.E2E_TIMEOUT_S || 300)
const r = spawnSync(process.execPath, ['--test-reporter=spec', file],
  { stdio: 'inherit', timeout: limitS * 1000, killSignal: 'SIGTERM' })
if (r.error?.code === 'ETIMEDOUT') console.error(`e2e: stopped after ${limitS} s (E2E_TIMEOUT_S)`)
process.exit(r.status ?? 1)
