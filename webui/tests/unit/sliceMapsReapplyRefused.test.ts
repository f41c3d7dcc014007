// A version the dataplane refused can be applied again from the editor (say once the host is fixed):
// the controller counts the apply (apply_seq) and drops the old refusal, so the page shows the version
// pending until the dataplane answers, and refused again, with the reason, when it refuses it again.
import { flushPromises } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import type { ApplianceStatus, ApplyResult } from '../../src/api/types'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import { json, oneStaTopology } from './responses'
import { mountSliceMapsPage } from './sliceMapsPage'

const reason = 'topology.aps[0].port: not the port in use'
const refused: ApplianceStatus = {
  id: 'lab', head: 150, desired: 150, active: 149, pending: true, rejected: { version: 150, error: reason, apply_seq: 1 },
  alive: true, heartbeat: { ts_ns: null, pid: 7, version: 149, backend: 'dpdk' }, heartbeat_age_s: 0.1, last_frame: null, fabric: null,
}
const answer = (st: ApplianceStatus): ApplyResult => ({ appliance_id: 'lab', version: 150, previous: 150, acknowledged: false, ack_ms: null, status: st })

// The applies' answers in turn; `polled` the status the appliances' poll (GET /appliances) gets, the last
// apply's until the test moves it on.
let polled: ApplianceStatus = refused
function stubApi(applies: ApplyResult[]): string[] {
  const posts: string[] = []
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    if (init.method === 'POST') {
      posts.push(u.split('?')[0])
      const r = applies.shift()!
      polled = r.status ?? polled // what the controller says from then on
      return json(200, r)
    }
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: 150, topology: oneStaTopology() })
    if (u.startsWith('/api/v1/slice-maps?')) return json(200, { appliance_id: 'lab', version: 150, frame_ms: 20, slice_map: { slices: [{ duration_ms: 20, pairs: ['ap1/sta1'] }] } })
    if (u === '/api/v1/appliances/lab') return json(200, refused)
    if (u === '/api/v1/appliances') return json(200, [polled])
    if (u.startsWith('/api/v1/versions?')) return json(200, { total: 0, items: [] })
    return json(404, {})
  }))
  return posts
}

beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
})
afterEach(() => vi.unstubAllGlobals())

it('applies a refused version again: pending until the dataplane answers, then refused again with its reason', async () => {
  const again = { ...refused, rejected: { version: 150, error: reason, apply_seq: 2 } }
  const posts = stubApi([
    answer({ ...refused, rejected: null }), // the dataplane does not answer within wait_ms
    answer({ ...refused, rejected: { version: 150, error: reason, apply_seq: 3 } }),
  ])
  const w = await mountSliceMapsPage()
  expect(w.get('[data-testid=refused-badge]').text()).toBe('refused 150')

  const apply = w.get('[data-testid=apply]')
  expect(apply.attributes('disabled')).toBeUndefined()
  await apply.trigger('click')
  await flushPromises()
  expect(posts).toEqual(['/api/v1/versions/150/apply'])
  expect(w.find('[data-testid=refused-badge]').exists()).toBe(false)
  expect(w.text()).toContain('pending 150')
  expect(w.get('[data-testid=notice]').text()).toContain('pending')
  expect(w.find('[data-testid=refusal]').exists()).toBe(false)

  // The dataplane refuses that apply after the wait: the page learns it from the appliances' poll.
  polled = again
  await useAppliances().refresh()
  await flushPromises()
  expect(w.get('[data-testid=refused-badge]').text()).toBe('refused 150')

  await w.get('[data-testid=apply]').trigger('click') // and once more, refused within the wait
  await flushPromises()
  expect(w.get('[data-testid=refused-badge]').text()).toBe('refused 150')
  expect(w.get('[data-testid=refusal]').text()).toContain(reason)
  w.unmount()
})

it('replaces the pending notice of an apply with the answer the appliances\' poll brings: refused, or running', async () => {
  stubApi([answer({ ...refused, rejected: null }), answer({ ...refused, rejected: null })])
  const w = await mountSliceMapsPage()
  await w.get('[data-testid=apply]').trigger('click')
  await flushPromises()
  expect(w.get('[data-testid=notice]').text()).toContain('pending')

  polled = { ...refused, rejected: { version: 150, error: reason, apply_seq: 2 } }
  await useAppliances().refresh()
  await flushPromises()
  expect(w.find('[data-testid=notice]').exists()).toBe(false)
  expect(w.get('[data-testid=refusal]').text()).toContain(reason)
  expect(w.get('[data-testid=refusal]').text()).toContain('keeps running version 149')

  await w.get('[data-testid=apply]').trigger('click') // applied again once more: pending, then it runs
  await flushPromises()
  expect(w.find('[data-testid=refusal]').exists()).toBe(false)
  polled = { ...refused, active: 150, pending: false, rejected: null }
  await useAppliances().refresh()
  await flushPromises()
  expect(w.get('[data-testid=notice]').text()).toContain('Version 150 applied and acknowledged')
  w.unmount()
})

it('says a dataplane that refused the version applied over its --config file keeps running that file, not version 0', async () => {
  // active 0 (REDIS.md): an operator's SIGHUP made the dataplane run its own file; no stored version 0 exists.
  const overFile = { ...refused, active: 0, heartbeat: { ...refused.heartbeat!, version: 0 } }
  stubApi([answer({ ...overFile, rejected: { version: 150, error: reason, apply_seq: 2 } })])
  const w = await mountSliceMapsPage()
  await w.get('[data-testid=apply]').trigger('click')
  await flushPromises()
  expect(w.get('[data-testid=refusal]').text()).toBe(`The dataplane refused version 150 and keeps running its --config file: ${reason}`)
  w.unmount()
})

it('says an apply answered with no status (the store went away after it was made) is applied, its answer unknown', async () => {
  // 202 from the controller (API.md): the version is desired; the dataplane's acknowledgement could not be read.
  stubApi([{ ...answer(refused), status: null }])
  polled = { ...refused, rejected: null } // the store is back, the dataplane has not answered yet
  const w = await mountSliceMapsPage()
  await w.get('[data-testid=apply]').trigger('click')
  await flushPromises()
  expect(w.find('[data-testid=server-error]').exists()).toBe(false)
  expect(w.get('[data-testid=notice]').text()).toBe('Version 150 applied; whether the dataplane runs it is not known: the controller lost its store after the apply (watch its status).')
  w.unmount()
})
