// End-to-end test of the dashboard in Debian's chromium (playwright-core, no
// downloaded browser) against the real controller and a real redis-server, with
// telemetry written into the Redis streams the way the dataplane writes them
// (e2e/telemetry_writer.py). Screenshots of every page go to test-results/.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { chromium } from 'playwright-core'
import { apiSession, controllerAvailable, Servers, WEBUI } from './servers.mjs'

const SHOTS = path.join(WEBUI, 'test-results')
const ADMIN = { username: 'admin', password: 'admin-password-e2e' }
const OPERATOR = { username: 'olivia', password: 'operator-password-e2e' }
const VIEWER = { username: 'victor', password: 'viewer-password-e2e' }
const missing = controllerAvailable()
if (missing) console.log(`# SKIP dashboard e2e: ${missing}`)

// Every visible text element whose colour against its effective background is below
// WCAG AA (4.5:1; 3:1 for large text); run inside the page.
const contrastProblems = () => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/)
    if (!m) return null
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number)
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }
  }
  const lum = ({ r, g, b }) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)
  }
  const bgOf = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor)
      if (c && c.a > 0.5) return c
    }
    return { r: 255, g: 255, b: 255, a: 1 }
  }
  const out = []
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg, canvas, .sr-only, .skip') || el.matches(':disabled') || el.closest('option')) continue
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue
    const box = el.getBoundingClientRect()
    const cs = getComputedStyle(el)
    if (!box.width || !box.height || cs.visibility === 'hidden') continue
    const a = lum(parse(cs.color))
    const b = lum(bgOf(el))
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)
    const size = parseFloat(cs.fontSize)
    const large = size >= 24 || (Number(cs.fontWeight) >= 700 && size >= 18.66)
    if (ratio < (large ? 3 : 4.5)) out.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 40)}" ${ratio.toFixed(2)}:1`)
  }
  return out
}

// Every visible form control whose box reaches past the right edge of the panel it
// sits in (a list wider than its card draws over the next one); run inside the page.
const controlsOutsidePanels = () => {
  const out = []
  for (const el of document.querySelectorAll('.panel input, .panel select, .panel button, .panel textarea')) {
    const box = el.getBoundingClientRect()
    if (!box.width || getComputedStyle(el).visibility === 'hidden') continue
    const panel = el.closest('.panel').getBoundingClientRect()
    if (box.right > panel.right + 0.5) {
      const name = el.getAttribute('aria-label') || el.id || el.textContent.trim().slice(0, 40)
      out.push(`${el.tagName.toLowerCase()} "${name}" ends ${(box.right - panel.right).toFixed(0)} px past its panel`)
    }
  }
  return out
}

// Every badge glued to the words beside it ("updpdk pid 7"): Vue drops a space that
// ends a line between two tags, and the page shows and reads them as one word; run inside the page.
const gluedBadges = () => {
  const out = []
  const sibling = (n, dir) => { do n = n[dir]; while (n && n.nodeType === 8); return n }
  for (const b of document.querySelectorAll('.badge')) {
    // Items of a flex or grid container are laid out apart, whatever the text between them.
    if (!b.getBoundingClientRect().width || /flex|grid/.test(getComputedStyle(b.parentElement).display)) continue
    const before = sibling(b, 'previousSibling')?.textContent ?? ''
    const after = sibling(b, 'nextSibling')?.textContent ?? ''
    if (/\S$/.test(before) || /^[^\s.,;:)]/.test(after))
      out.push(`"${before.slice(-20)}[${b.textContent.trim()}]${after.slice(0, 20)}"`)
  }
  return out
}

describe('dashboard against the real controller', { skip: missing ?? false }, () => {
  const servers = new Servers()
  let browser, page, admin
  let appliedVersion = null

  const shot = (name) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true })
  const go = async (route) => {
    await page.goto(`${servers.base}/#${route}`)
    await page.waitForLoadState('networkidle').catch(() => null)
  }
  async function login(who) {
    await go('/login')
    await page.fill('#login-username', who.username)
    await page.fill('#login-password', who.password)
    await page.click('button[type=submit]')
    await page.getByTestId('who').waitFor()
  }
  async function logout() {
    await page.getByRole('button', { name: 'Log out' }).click()
    await page.locator('#login-username').waitFor()
  }

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true })
    await servers.startRedis()
    servers.runPy(['create-admin', '--redis-url', servers.redisUrl, '--username', ADMIN.username, '--password-stdin'], ADMIN.password + '\n')
    servers.runPy(['seed', 'configs/lab-2ap-2sta.yaml', '--redis-url', servers.redisUrl, '--apply', '--comment', 'lab seed'])
    await servers.startController()
    admin = await apiSession(servers.base, ADMIN.username, ADMIN.password)
    for (const [u, role] of [[OPERATOR, 'operator'], [VIEWER, 'viewer']]) {
      const r = await admin('POST', '/auth/users', { username: u.username, password: u.password, role })
      assert.equal(r.status, 201, JSON.stringify(r.body))
    }
    servers.startTelemetry('lab', 170)
    const userDataDir = path.join(servers.tmp, 'chromium-profile')
    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
      viewport: { width: 1400, height: 900 },
    })
    page = browser.pages()[0] ?? (await browser.newPage())
    page.setDefaultTimeout(10000)
    // Leaving an editor with unsaved edits asks (window.confirm): the tests leave
    // refused edits behind on purpose, so that question is answered yes; any other
    // dialog is dismissed, as playwright does by default.
    page.on('dialog', (d) => void (d.type() === 'confirm' && /unsaved edits/.test(d.message()) ? d.accept() : d.dismiss()))
    // Nothing may be loaded from anywhere but the controller.
    page.on('request', (req) => {
      const u = new URL(req.url())
      if (!['127.0.0.1', 'localhost'].includes(u.hostname) && !u.protocol.startsWith('data')) page.offsite = req.url()
    })
    // Nothing the controller's Content-Security-Policy (security_headers.py) refuses: Chromium reports each refusal
    // on the console.
    page.cspRefused = []
    page.on('console', (msg) => void (/Content Security Policy/.test(msg.text()) && page.cspRefused.push(msg.text())))
  })

  after(async () => {
    await browser?.close().catch(() => null)
    await servers.stopAll()
    if (process.exitCode) console.log(servers.logs())
    else servers.cleanup()
  })

  test('a wrong password is refused beside the password field, then the operator logs in', async () => {
    await go('/live')
    await page.locator('#login-username').waitFor() // the guard sent us to the login page
    await page.fill('#login-username', OPERATOR.username)
    await page.fill('#login-password', 'not-the-password')
    await page.click('button[type=submit]')
    const err = page.locator('#login-password + .field-errors')
    await err.waitFor()
    assert.match(await err.innerText(), /wrong user name or password/)
    await shot('login')
    await page.fill('#login-password', OPERATOR.password)
    await page.click('button[type=submit]')
    await page.getByTestId('who').waitFor()
    assert.equal(await page.getByTestId('who').innerText(), 'olivia (operator)')
  })

  test('the operator builds a slice map by dragging pairs, saves it as a version and applies it', async () => {
    await go('/slice-maps')
    await page.getByTestId('base-version').waitFor()
    assert.equal(await page.getByTestId('frame-ms').innerText(), '40 ms')
    await page.getByRole('button', { name: 'Add slice' }).click()
    await page.locator('.slice[data-slice="0"] .chip[data-pair="ap1/sta1"]').dragTo(page.locator('.slice[data-slice="2"]'))
    assert.equal(await page.locator('.slice[data-slice="2"] .chip[data-pair="ap1/sta1"]').count(), 1)
    assert.match(await page.locator('.slice[data-slice="0"]').innerText(), /a slice needs at least one pair/)
    await page.getByRole('button', { name: 'Remove slice 1', exact: true }).click()
    await page.fill('#dur-1', '30')
    assert.equal(await page.getByTestId('frame-ms').innerText(), '50 ms')
    assert.equal(await page.getByTestId('local-problems').count(), 0)
    await page.fill('#comment', 'give ap1/sta1 a longer slice')
    await page.getByTestId('save').click()
    await page.getByTestId('notice').filter({ hasText: 'Saved as version' }).waitFor()
    const saved = Number((await page.getByTestId('notice').innerText()).match(/version (\d+)/)[1])
    assert.equal(await page.getByTestId('base-version').innerText(), String(saved))
    const stored = await admin('GET', `/versions/${saved}`)
    assert.deepEqual(stored.body.doc.slice_map.slices, [{ duration_ms: 20, pairs: ['ap2/sta2'] }, { duration_ms: 30, pairs: ['ap1/sta1'] }])
    assert.equal(stored.body.author, OPERATOR.username)
    assert.equal(stored.body.comment, 'give ap1/sta1 a longer slice')
    await page.getByRole('button', { name: 'Diff against active' }).click()
    await page.locator('pre.diff').waitFor()
    assert.match(await page.getByTestId('diff-changes').innerText(), /slice_map/)
    await shot('slice-maps')
    await page.getByTestId('apply').click()
    await page.getByTestId('notice').filter({ hasText: `Version ${saved} applied` }).waitFor()
    const st = await admin('GET', '/appliances/lab')
    assert.equal(st.body.desired, saved)
    assert.equal(st.body.active, saved, 'the telemetry writer acknowledges applied versions as the dataplane does')
    appliedVersion = saved
    assert.equal(await page.getByTestId('active-version').innerText(), String(saved))
  })

  test('a map with conflicting pairs in one slice is flagged before saving and refused with the field shown', async () => {
    const before = (await admin('GET', '/versions', undefined)).body.total
    await go('/slice-maps')
    await page.getByTestId('base-version').waitFor()
    await page.getByRole('combobox', { name: 'Add a pair to slice 2' }).selectOption('ap2/sta2')
    await page.getByRole('button', { name: 'Remove slice 1', exact: true }).click()
    const chip = page.locator('.slice[data-slice="0"] .chip[data-pair="ap2/sta2"]')
    assert.match(await chip.innerText(), /conflict/)
    await page.getByTestId('local-problems').waitFor()
    await page.getByTestId('save').click()
    await page.getByTestId('server-error').waitFor()
    assert.match(await page.getByTestId('server-error').innerText(), /422/)
    const fieldMsg = page.locator('.slice[data-slice="0"] li:has(.chip[data-pair="ap2/sta2"]) .field-errors')
    assert.match(await fieldMsg.innerText(), /conflicts with 'ap1\/sta1' in the same slice/)
    await shot('slice-maps-refused')
    assert.equal((await admin('GET', '/versions')).body.total, before, 'a refused map stores no version')
    await page.fill('#dur-0', '600')
    await page.getByTestId('save').click()
    const durMsg = page.locator('.slice[data-slice="0"] .slice-head + .field-errors')
    await durMsg.filter({ hasText: /less than or equal to 500/ }).waitFor()
  })

  test('the Live page shows the applied map and updates from telemetry in Redis', async () => {
    assert.ok(appliedVersion, 'needs the applied version of the editor test')
    await go('/live')
    const caption = page.locator('[data-testid=frame-timeline] figcaption')
    await caption.filter({ hasText: `version ${appliedVersion}` }).waitFor({ timeout: 10000 })
    assert.match(await caption.innerText(), /50 ms, 2 slices/)
    await page.locator('[data-testid=pair-table] tr[data-pair="ap1/sta1"]').waitFor()
    // Throughput is the writer's service rate times the pair's share of the 50 ms frame (30 and 20 ms).
    assert.equal(await page.locator('tr[data-pair="ap1/sta1"] [data-testid=tput]').innerText(), '58.1')
    assert.equal(await page.locator('tr[data-pair="ap2/sta2"] [data-testid=tput]').innerText(), '38.8')
    assert.equal(await page.getByTestId('feed-state').innerText(), 'live')
    const frameOf = async () => Number((await caption.innerText()).match(/Frame (\d+)/)[1])
    const first = await frameOf()
    const lagMs = await page.evaluate(() => new Promise((resolve) => {
      const fig = document.querySelector('[data-testid=frame-timeline]')
      const start = fig.getAttribute('data-frame')
      const obs = new MutationObserver(() => {
        if (fig.getAttribute('data-frame') !== start) {
          obs.disconnect()
          resolve(Date.now() - Number(fig.getAttribute('data-ts-ns')) / 1e6)
        }
      })
      obs.observe(fig, { attributes: true })
    }))
    assert.ok((await frameOf()) > first, 'the frame shown advances')
    console.log(`# live: frame written to Redis -> drawn in the page after ${lagMs.toFixed(0)} ms`)
    assert.equal(await page.locator('canvas').count() >= 7, true, 'utility chart and three charts per pair drawn')
    await page.waitForTimeout(1500) // let the charts gather a few seconds of history for the screenshot
    await shot('live')
  })

  test('topology, policies, appliances and history pages show the stored configuration', async () => {
    await go('/topology')
    await page.locator('svg[data-testid=conflict-graph]').waitFor()
    assert.equal(await page.locator('svg[data-testid=conflict-graph] line.conflict').count(), 1)
    await shot('topology')
    await go('/policies')
    const a = page.locator('input[name="ts_abr_qd.a_pkts_per_ms"]')
    await a.waitFor()
    assert.equal(await a.inputValue(), '1')
    assert.equal(await a.getAttribute('max'), '20')
    await shot('policies')
    await go('/appliances')
    await page.locator(`[data-testid=appliance-lab] [data-testid=active]`).filter({ hasText: String(appliedVersion) }).waitFor()
    await shot('appliances')
    await go('/history')
    await page.locator('[data-testid=versions] tr', { hasText: 'give ap1/sta1 a longer slice' }).waitFor()
    await page.locator('[data-testid=audit] tr', { hasText: 'version.apply' }).first().waitFor()
    await shot('history')
  })

  test('the appliances page shows the fabric mode and the aggregation-target loops as their writers update them', async () => {
    await go('/appliances')
    const detail = page.getByTestId('appliance-detail-lab')
    // Nothing has written either status yet: both empty states, naming what to run.
    await detail.getByTestId('aggregation-empty').filter({ hasText: 'aggregation-loop' }).waitFor()
    await detail.getByTestId('fabric-empty').waitFor()
    servers.startStatusWriter('lab', 8, 170)
    await detail.getByTestId('fabric-mode').filter({ hasText: 'steered through the dataplane' }).waitFor()
    assert.match(await detail.getByTestId('fabric-reason').innerText(), /dataplane healthy/)
    const p1 = detail.getByTestId('aggregation-pair-ap1/sta1')
    await p1.getByTestId('n-target').filter({ hasText: '12.0' }).waitFor()
    assert.match(await p1.getByTestId('bottleneck').innerText(), /WLAN/)
    assert.match(await p1.getByTestId('pace').innerText(), /Mbit\/s/)
    const p2 = detail.getByTestId('aggregation-pair-ap2/sta2')
    assert.match(await p2.getByTestId('bottleneck').innerText(), /backhaul \(rate held\)/)
    const caption = detail.locator('[data-testid=aggregation-ap-ap1] caption')
    assert.match(await caption.innerText(), /ĉ = \d+ µs/)
    // The page follows the runner: the step counter shown moves on.
    const step = async () => Number((await caption.innerText()).match(/step (\d+)/)[1])
    const first = await step()
    await page.waitForFunction((n) => {
      const m = document.querySelector('[data-testid=aggregation-ap-ap1] caption')?.textContent.match(/step (\d+)/)
      return m && Number(m[1]) > n
    }, first)
    // The fabric manager switches to bypass (fail-open): mode, reason and since are shown.
    await detail.getByTestId('fabric-mode').filter({ hasText: 'bypass (fail-open)' }).waitFor({ timeout: 20000 })
    assert.match(await detail.getByTestId('fabric-reason').innerText(), /no heartbeat/)
    assert.match(await detail.getByTestId('fabric-since').innerText(), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(\d+ s ago\)$/)
    // Each AP's loop table is a focusable region, reachable with Tab.
    let reached = false
    for (let i = 0; i < 80 && !reached; i++) {
      await page.keyboard.press('Tab')
      reached = await page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'aggregation-ap-ap1')
    }
    assert.ok(reached, 'the aggregation table of ap1 is reachable from the keyboard')
    await detail.scrollIntoViewIfNeeded()
    await shot('appliances-fabric-aggregation')
  })

  test('a policy out of its schema range is marked as typed and refused beside its field; a valid one is saved', async () => {
    const before = (await admin('GET', '/versions')).body.total
    await go('/policies')
    const a = page.locator('input[name="ts_abr_qd.a_pkts_per_ms"]')
    await a.waitFor()
    await a.fill('25')
    const msg = page.locator('.field:has(input[name="ts_abr_qd.a_pkts_per_ms"]) .field-errors')
    assert.equal(await msg.innerText(), 'must be at most 20')
    await page.getByRole('button', { name: 'Save policies' }).click()
    await page.getByTestId('server-error').waitFor()
    assert.match(await page.getByTestId('server-error').innerText(), /422/)
    assert.match(await msg.innerText(), /less than or equal to 20/)
    await shot('policies-refused')
    assert.equal((await admin('GET', '/versions')).body.total, before, 'a refused document stores no version')
    await a.fill('2')
    await page.fill('#pol-comment', 'faster batch adaptation')
    await page.getByRole('button', { name: 'Save policies' }).click()
    await page.getByTestId('notice').filter({ hasText: 'Saved as version' }).waitFor()
    const v = (await admin('GET', '/versions')).body.items[0]
    assert.equal(v.comment, 'faster batch adaptation')
    assert.equal((await admin('GET', `/versions/${v.version}`)).body.doc.policies.ts_abr_qd.a_pkts_per_ms, 2)
  })

  test('a topology imported from CSV is checked line by line, then saved as a new version', async () => {
    await go('/topology')
    await page.locator('svg[data-testid=conflict-graph]').waitFor()
    const header = 'kind,id,name,channel,port,vlan,mac,ips,ap,a,b'
    await page.setInputFiles('#topo-import', { name: 'bad.csv', mimeType: 'text/csv',
      buffer: Buffer.from(`${header}\nap,ap1,AP1,thirty-six,ap1,,,,,,\n`) })
    await page.locator('#import-problems').waitFor()
    assert.match(await page.locator('#import-problems').innerText(), /CSV line 2: channel "thirty-six" is not a whole number/)
    // The optional number columns may come in any order after the others.
    const csv = [`${header},ampdu_ceiling_mpdus,ampdu_ceiling_us,phy_rate_mbps`,
      'ap,ap1,AP1 north wing,36,ap1,,,,,,,40,3000,', 'ap,ap2,AP2 south wing,36,ap2,,,,,,,,,',
      'sta,sta1,,,,,02:ad:00:00:01:01,198.18.0.11,ap1,,,,,390', 'sta,sta2,,,,,02:ad:00:00:02:01,198.18.0.12,ap2,,,,,',
      'conflict,,,,,,,,,ap1/sta1,ap2/sta2,,,'].join('\n')
    await page.setInputFiles('#topo-import', { name: 'lab.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
    await page.getByTestId('notice').filter({ hasText: 'Imported lab.csv: 2 APs, 2 STAs, 1 conflict' }).waitFor()
    assert.equal(await page.getByLabel('AP 1 name').inputValue(), 'AP1 north wing')
    await page.fill('#topo-comment', 'AP names from the building plan')
    await page.getByRole('button', { name: 'Save topology' }).click()
    await page.getByTestId('notice').filter({ hasText: 'Saved as version' }).waitFor()
    const v = (await admin('GET', '/versions')).body.items[0]
    const saved = (await admin('GET', `/versions/${v.version}`)).body.doc.topology
    assert.equal(saved.aps[0].name, 'AP1 north wing')
    assert.deepEqual([saved.aps[0].ampdu_ceiling_mpdus, saved.aps[0].ampdu_ceiling_us, saved.aps[1].ampdu_ceiling_us], [40, 3000, null])
    assert.deepEqual([saved.stas[0].phy_rate_mbps, saved.stas[1].phy_rate_mbps], [390, null])
  })

  test('a viewer sees everything read-only and a write is refused', async () => {
    await logout()
    await login(VIEWER)
    await go('/slice-maps')
    await page.getByTestId('readonly').waitFor()
    assert.equal(await page.getByTestId('save').count(), 0)
    assert.equal(await page.locator('#dur-0').isDisabled(), true)
    assert.equal(await page.locator('.chip[draggable=true]').count(), 0)
    await shot('viewer-slice-maps')
    await go('/topology')
    await page.locator('svg[data-testid=conflict-graph]').waitFor()
    assert.equal(await page.getByRole('button', { name: /Add AP|Save topology/ }).count(), 0)
    await go('/policies')
    await page.locator('input[name="ts_abr_qd.a_pkts_per_ms"]').waitFor()
    assert.equal(await page.locator('input[name="ts_abr_qd.a_pkts_per_ms"]').isDisabled(), true)
    // Even a hand-made request with the viewer's own CSRF token is refused for its role.
    const refusal = await page.evaluate(async () => {
      const me = await (await fetch('/api/v1/auth/me')).json()
      const r = await fetch('/api/v1/versions/1/apply', { method: 'POST', headers: { 'X-CSRF-Token': me.csrf_token } })
      return { status: r.status, body: await r.json() }
    })
    assert.equal(refusal.status, 403)
    assert.equal(refusal.body.field, 'role')
  })

  test('an admin manages users and API tokens; a refused field is shown beside it', async () => {
    await logout()
    await login(ADMIN)
    await go('/access')
    await page.locator('[data-testid=users] tr[data-user="victor"]').waitFor()
    // Demoting the only admin is refused, and the selector shows the stored role again.
    const adminRole = page.getByLabel('Role of admin')
    await adminRole.selectOption('viewer')
    await page.getByTestId('user-row-error').filter({ hasText: 'last active admin' }).waitFor()
    assert.equal(await adminRole.inputValue(), 'admin')
    await page.fill('#user-name', 'nadia')
    await page.fill('#user-password', 'short')
    await page.selectOption('#user-role', 'operator')
    await page.getByRole('button', { name: 'Create user' }).click()
    const pwErr = page.locator('#user-password + .field-errors')
    await pwErr.waitFor()
    assert.match(await pwErr.innerText(), /at least 10 characters/)
    assert.equal((await admin('GET', '/auth/users')).body.some((u) => u.username === 'nadia'), false, 'nothing created')
    await page.fill('#user-password', 'a-long-enough-password')
    await page.getByRole('button', { name: 'Create user' }).click()
    await page.getByTestId('user-notice').filter({ hasText: 'User nadia created with role operator' }).waitFor()
    await page.fill('#tok-name', 'ansible')
    await page.selectOption('#tok-role', 'operator')
    await page.getByRole('button', { name: 'Create token' }).click()
    const secret = (await page.getByTestId('token-secret').locator('code').innerText()).trim()
    await shot('access')
    // The token works for automation, with the role it was given.
    const r = await fetch(`${servers.base}/api/v1/auth/me`, { headers: { Authorization: `Bearer ${secret}` } })
    assert.equal(r.status, 200)
    assert.deepEqual([(await r.json()).role], ['operator'])
  })

  test('an admin rolls back to the first version: a copy is applied and acknowledged', async () => {
    await go('/slice-maps')
    await page.getByTestId('base-version').waitFor()
    await page.selectOption('#rollback', '1')
    await page.getByRole('button', { name: 'Roll back', exact: true }).click()
    const notice = page.getByTestId('notice').filter({ hasText: 'Rolled back' })
    await notice.waitFor()
    const n = Number((await notice.innerText()).match(/version (\d+) \(a copy of 1\) applied and acknowledged/)[1])
    assert.equal(await page.getByTestId('active-version').innerText(), String(n))
    assert.deepEqual((await admin('GET', `/versions/${n}`)).body.doc.slice_map, (await admin('GET', '/versions/1')).body.doc.slice_map)
    await page.getByTestId('frame-ms').filter({ hasText: '40 ms' }).waitFor()
  })

  test('applying the version loaded here once a newer one was saved elsewhere asks first; declined, nothing is applied', async () => {
    const cur = (await admin('GET', '/slice-maps?appliance=lab')).body
    const loaded = await admin('PUT', '/slice-maps?appliance=lab', { slice_map: cur.slice_map, comment: 'loaded here', base_version: cur.version })
    assert.equal(loaded.status, 201, JSON.stringify(loaded.body))
    await go('/slice-maps')
    await page.reload() // the page was on this route already: loaded again, with the version just saved
    await page.getByTestId('base-version').filter({ hasText: String(loaded.body.version) }).waitFor()
    const desired = (await admin('GET', '/appliances/lab')).body.desired
    const newer = await admin('PUT', '/slice-maps?appliance=lab', { slice_map: cur.slice_map, comment: 'saved elsewhere', base_version: loaded.body.version })
    assert.equal(newer.status, 201, JSON.stringify(newer.body))
    // The appliances' poll (every 3 s) brings the newer head to the page.
    await page.waitForResponse(async (r) => r.url().endsWith('/api/v1/appliances') && r.ok()
      && (await r.json()).some((a) => a.id === 'lab' && a.head === newer.body.version), { timeout: 10000 })
    const sent = []
    const record = (req) => void sent.push(`${req.method()} ${new URL(req.url()).pathname}`)
    page.on('request', record)
    try {
      const asked = page.waitForEvent('dialog', { timeout: 5000 })
      await page.getByTestId('apply').click()
      assert.match((await asked).message(), new RegExp(`Version ${newer.body.version} has been saved since version ${loaded.body.version}`))
      // A request the page makes after the question: an apply sent anyway would have gone before it.
      const diff = page.waitForResponse((r) => /\/versions\/\d+\/diff/.test(r.url()))
      await page.getByRole('button', { name: 'Diff against active' }).click()
      await diff
    } finally {
      page.off('request', record)
    }
    assert.deepEqual(sent.filter((r) => /\/apply$/.test(r)), [], 'the declined apply was sent')
    assert.equal((await admin('GET', '/appliances/lab')).body.desired, desired)
  })

  test('with dynamic slicing on, the Live page shows the idle pair\'s slice given to the other pair', async () => {
    const pol = (await admin('GET', '/policies?appliance=lab')).body
    pol.policies.dynamic_slicing.enabled = true
    const v = await admin('PUT', '/policies?appliance=lab', { policies: pol.policies, comment: 'dynamic slicing on', base_version: pol.version })
    assert.equal(v.status, 201, JSON.stringify(v.body))
    assert.equal((await admin('POST', `/versions/${v.body.version}/apply?wait_ms=3000`, {})).body.acknowledged, true)
    await go('/live')
    const given = page.locator('[data-testid=frame-timeline] li.given')
    await given.first().waitFor()
    assert.match(await given.first().innerText(), /ap2\/sta2[\s\S]*given to ap1\/sta1/)
    assert.match(await page.locator('[data-testid=frame-timeline] figcaption').innerText(), /1 reassigned/)
    const row = page.locator('tr[data-pair="ap2/sta2"]')
    await row.locator('td', { hasText: 'yes' }).waitFor()
    await page.waitForTimeout(1500)
    await shot('live-dynamic-slicing')
  })

  test('keyboard: skip link first, pages reached with Tab and Enter, a visible focus ring, a slice edited without a mouse', async () => {
    await go('/live')
    await page.getByTestId('feed-state').waitFor()
    const focused = () => page.evaluate(() => {
      const e = document.activeElement
      const cs = getComputedStyle(e)
      return { tag: e.tagName, id: e.id, text: (e.textContent || '').trim(), label: e.getAttribute('aria-label'), outline: `${cs.outlineStyle} ${cs.outlineWidth}` }
    })
    await page.keyboard.press('Tab')
    assert.equal((await focused()).text, 'Skip to content')
    await page.keyboard.press('Enter')
    assert.equal((await focused()).id, 'main')
    await page.keyboard.press('Shift+Tab') // back through the header to the navigation
    for (let i = 0; i < 20 && (await focused()).text !== 'Slice maps'; i++) await page.keyboard.press('Shift+Tab')
    const link = await focused()
    assert.equal(link.text, 'Slice maps')
    assert.match(link.outline, /^solid [3-9]/, `focus ring on the link: ${link.outline}`)
    await page.keyboard.press('Enter')
    await page.getByTestId('base-version').waitFor()
    assert.equal(new URL(page.url()).hash, '#/slice-maps')
    assert.equal((await focused()).id, 'main', 'a page change puts focus on the page')
    const addLabel = 'Add a pair to slice 1 (it stays in its other slices)'
    for (let i = 0; i < 60 && (await focused()).label !== addLabel; i++) await page.keyboard.press('Tab')
    assert.equal((await focused()).label, addLabel)
    await page.keyboard.press('ArrowDown') // a closed select changes its value (and fires change) on arrow keys
    await page.locator('.slice[data-slice="0"] .chip.conflict').first().waitFor()
    assert.equal(await page.locator('.slice[data-slice="0"] .chip').count(), 2)
    await shot('keyboard-slice-edit')
  })

  // check (run inside the page, it lists problems) must first flag a probe put on probe.route (an element with
  // id "probe"); then the problems it finds on every page, each prefixed with its route.
  async function problemsOnEveryPage(check, probe) {
    await go(probe.route)
    await page.locator(probe.ready).first().waitFor()
    await page.evaluate(probe.insert)
    assert.ok((await page.evaluate(check)).some((p) => p.includes(probe.flagged)), 'the probe is flagged')
    await page.evaluate(() => document.getElementById('probe').remove())
    const failures = []
    for (const route of ['/live', '/slice-maps', '/topology', '/policies', '/appliances', '/history', '/access']) {
      await go(route)
      await page.locator('main h1').waitFor()
      await page.waitForTimeout(300)
      failures.push(...(await page.evaluate(check)).map((b) => `${route}: ${b}`))
    }
    return failures
  }

  test('text on every page has at least WCAG AA contrast (4.5:1, large text 3:1)', async () => {
    // The probe: a grey #999 on white (2.8:1).
    const failures = await problemsOnEveryPage(contrastProblems, {
      route: '/live', ready: 'main h1', flagged: '"probe" 2.85:1',
      insert: () => document.querySelector('main').insertAdjacentHTML('beforeend', '<p id="probe" style="color:#999">probe</p>'),
    })
    assert.deepEqual(failures, [])
  })

  test('no form control reaches past the panel it sits in, on any page', async () => {
    // The probe: a select wider than its panel.
    const failures = await problemsOnEveryPage(controlsOutsidePanels, {
      route: '/slice-maps', ready: '.slice.panel', flagged: 'select "probe"',
      insert: () => document.querySelector('.panel').insertAdjacentHTML('beforeend', '<select id="probe" style="width:200vw"></select>'),
    })
    assert.deepEqual(failures, [])
  })

  test('every badge is a word of its own on every page', async () => {
    // The probe: a badge glued to the next word.
    const failures = await problemsOnEveryPage(gluedBadges, {
      route: '/appliances', ready: 'main h1', flagged: '[probe]glued',
      insert: () => document.querySelector('main').insertAdjacentHTML('beforeend', '<p id="probe"><span class="badge">probe</span>glued</p>'),
    })
    assert.deepEqual(failures, [])
  })

  test('a lost controller connection is shown and the page recovers when it returns', async () => {
    await go('/live')
    await page.getByTestId('feed-state').filter({ hasText: 'live' }).waitFor()
    await servers.stopController()
    await page.getByTestId('offline').waitFor({ timeout: 10000 })
    await page.getByTestId('feed-state').filter({ hasText: 'retrying' }).waitFor({ timeout: 10000 })
    await shot('connection-lost')
    await servers.startController()
    await page.getByTestId('feed-state').filter({ hasText: 'live' }).waitFor({ timeout: 15000 })
    await page.getByTestId('offline').waitFor({ state: 'detached', timeout: 10000 })
    assert.equal(page.offsite, undefined, `nothing loaded from outside the controller (${page.offsite})`)
    assert.deepEqual(page.cspRefused, [], 'the Content-Security-Policy refused nothing the dashboard does')
  })
})
