// Real servers for the end-to-end test: a redis-server on a free loopback port,
// the controller (python -m adwiser_controller serve) serving dist/, and the
// telemetry writer. Each is started as a child process and stopped by its PID.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

export const WEBUI = path.resolve(import.meta.dirname, '..')
export const ROOT = path.resolve(WEBUI, '..')
export const PY = path.resolve(WEBUI, process.env.PY || '../.venv/bin/python')
const PYENV = { ...process.env, PYTHONPATH: path.join(ROOT, 'controller') }

export function controllerAvailable() {
  if (!fs.existsSync(PY)) return `no Python virtualenv at ${PY} (run make deps)`
  const r = spawnSync(PY, ['-c', 'import adwiser_controller.app'], { env: PYENV, encoding: 'utf8' })
  return r.status === 0 ? null : `the controller package adwiser_controller cannot be imported: ${r.stderr.trim().split('\n').pop()}`
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

async function waitFor(what, fn, timeoutMs = 15000) {
  const end = Date.now() + timeoutMs
  let last
  while (Date.now() < end) {
    try {
      if (await fn()) return
    } catch (e) {
      last = e
    }
    await sleep(100)
  }
  throw new Error(`${what} did not come up within ${timeoutMs} ms${last ? `: ${last.message}` : ''}`)
}

function redisPing(port) {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1')
    c.once('error', () => resolve(false))
    c.once('data', (d) => {
      c.destroy()
      resolve(d.toString().startsWith('+PONG'))
    })
    c.once('connect', () => c.write('PING\r\n'))
  })
}

// Every server this run started, by PID, so that a failing or interrupted run
// (the time bound of run.mjs sends SIGTERM) still stops them all.
const started = new Set()
function killStarted(signal) {
  for (const pid of started) {
    try {
      process.kill(pid, signal)
    } catch {
      // already gone
    }
  }
}
process.once('exit', () => killStarted('SIGKILL'))
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.once(sig, () => {
    console.error(`# e2e: ${sig}, stopping the servers it started (pids ${[...started].join(' ')})`)
    killStarted('SIGTERM')
    process.exit(1)
  })
}

export class Servers {
  constructor() {
    this.children = []
    this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'adwiser-webui-e2e-'))
  }

  /** Removes the run's temporary directory (logs, redis dir, browser profile). */
  cleanup() {
    fs.rmSync(this.tmp, { recursive: true, force: true })
  }

  spawn(name, cmd, args, opts = {}) {
    const log = fs.openSync(path.join(this.tmp, `${name}.log`), 'a')
    const child = spawn(cmd, args, { stdio: ['pipe', log, log], env: PYENV, ...opts })
    child.name = name
    started.add(child.pid)
    child.once('exit', () => started.delete(child.pid))
    this.children.push(child)
    return child
  }

  runPy(args, input) {
    const r = spawnSync(PY, ['-m', 'adwiser_controller', ...args], { env: PYENV, input, encoding: 'utf8', cwd: ROOT })
    if (r.status !== 0) throw new Error(`adwiser_controller ${args[0]} failed: ${r.stderr}`)
    return r.stdout
  }

  async startRedis() {
    this.redisPort = await freePort()
    this.redisUrl = `redis://127.0.0.1:${this.redisPort}/0`
    this.spawn('redis', 'redis-server', ['--port', String(this.redisPort), '--bind', '127.0.0.1', '--save', '',
      '--appendonly', 'no', '--dir', this.tmp])
    await waitFor('redis-server', () => redisPing(this.redisPort))
  }

  async startController() {
    this.port ??= await freePort()
    this.base = `http://127.0.0.1:${this.port}`
    this.controller = this.spawn('controller', PY, ['-m', 'adwiser_controller', 'serve', '--redis-url', this.redisUrl,
      '--host', '127.0.0.1', '--port', String(this.port), '--webui-dist', path.join(WEBUI, 'dist'),
      '--log-level', 'warning', '--no-access-log'], { cwd: ROOT })
    await waitFor('controller', async () => (await fetch(`${this.base}/api/v1/health`)).ok)
  }

  async stopController() {
    await this.stop(this.controller)
    this.controller = null
  }

  startTelemetry(appliance, durationS) {
    this.writer = this.spawn('telemetry', PY, [path.join(WEBUI, 'e2e', 'telemetry_writer.py'), '--redis-url',
      this.redisUrl, '--appliance', appliance, '--duration', String(durationS)])
  }

  startStatusWriter(appliance, bypassAtS, durationS) {
    this.statusWriter = this.spawn('status', PY, [path.join(WEBUI, 'e2e', 'status_writer.py'), '--redis-url',
      this.redisUrl, '--appliance', appliance, '--bypass-at', String(bypassAtS), '--duration', String(durationS)])
  }

  async stop(child) {
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const gone = new Promise((r) => child.once('exit', r))
    process.kill(child.pid, 'SIGTERM')
    const t = setTimeout(() => child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 5000)
    await gone
    clearTimeout(t)
  }

  async stopAll() {
    for (const c of [...this.children].reverse()) await this.stop(c).catch(() => null)
  }

  logs() {
    return fs.readdirSync(this.tmp).filter((f) => f.endsWith('.log'))
      .map((f) => `--- ${f}\n${fs.readFileSync(path.join(this.tmp, f), 'utf8').slice(-3000)}`).join('\n')
  }
}

/** A logged-in API session for setting up accounts (cookie + CSRF, as the UI does). */
export async function apiSession(base, username, password) {
  const r = await fetch(`${base}/api/v1/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }) })
  if (!r.ok) throw new Error(`login ${username}: ${r.status} ${await r.text()}`)
  const me = await r.json()
  const cookie = r.headers.get('set-cookie').split(';')[0]
  return async (method, p, body) => {
    const res = await fetch(`${base}/api/v1${p}`, { method, headers: { 'Content-Type': 'application/json', Cookie: cookie,
      'X-CSRF-Token': me.csrf_token }, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : null }
  }
}
