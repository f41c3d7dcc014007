// Screenshot of one dashboard page in Debian's chromium (playwright-core, headless):
//   node e2e/screenshot.mjs URL USER PASSWORD OUT.png [ROUTE]   (ROUTE default /live)
// Logs in through the login form, waits for the page's live feed (on /live) and a
// few seconds of charts, and saves a full-page PNG. Used by `make demo --screenshot`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'

const [url, username, password, out, route = '/live'] = process.argv.slice(2)
if (!out) {
  console.error('usage: node e2e/screenshot.mjs URL USER PASSWORD OUT.png [ROUTE]')
  process.exit(2)
}
const base = url.replace(/\/+$/, '')
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'adwiser-shot-'))
let browser
try {
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 900 },
  })
  const page = browser.pages()[0] ?? (await browser.newPage())
  page.setDefaultTimeout(15000)
  await page.goto(`${base}/#/login`)
  await page.fill('#login-username', username)
  await page.fill('#login-password', password)
  await page.click('button[type=submit]')
  await page.getByTestId('who').waitFor()
  await page.goto(`${base}/#${route}`)
  if (route === '/live') {
    await page.getByTestId('feed-state').filter({ hasText: 'live' }).waitFor()
    await page.locator('[data-testid=pair-table] tr[data-pair]').first().waitFor()
  }
  await page.waitForTimeout(8000) // a few seconds of chart history
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true })
  await page.screenshot({ path: out, fullPage: true })
} finally {
  await browser?.close().catch(() => null)
  fs.rmSync(profile, { recursive: true, force: true })
}
