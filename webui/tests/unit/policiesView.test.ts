import { flushPromises } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Topology } from '../../src/api/types'
import { policySections } from '../../src/lib/policySchema'
import { hasUnsavedEdits } from '../../src/lib/unsavedEdits'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import PoliciesView from '../../src/views/PoliciesView.vue'
import { mountOnRoute } from './pageOnRoute'
import { json } from './responses'

const topology: Topology = { aps: [], stas: [], conflicts: [] }
const policies = () => ({ ...Object.fromEntries(policySections().map((s) => [s.key, {}])), ts_abr_qd: { a_pkts_per_ms: 1 } })
const refusal = 'Input should be less than or equal to 20'

beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    if (init.method === 'PUT') return json(422, {
      status: 422, detail: `policies.ts_abr_qd.a_pkts_per_ms: ${refusal}`, field: 'policies.ts_abr_qd.a_pkts_per_ms',
      errors: [{ field: 'policies.ts_abr_qd.a_pkts_per_ms', message: refusal, type: 'less_than_equal' }],
    })
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: 4, topology })
    return json(200, { appliance_id: 'lab', version: 4, policies: policies() })
  }))
})
afterEach(() => vi.unstubAllGlobals())

const mountPage = () => mountOnRoute(PoliciesView, '/policies')

describe('PoliciesView', () => {
  it("drops the controller's refusal beside a field once that field is edited, and shows it again when saved still wrong", async () => {
    const w = await mountPage()
    const a = w.get('input[name="ts_abr_qd.a_pkts_per_ms"]')
    const shown = () => a.element.closest('.field')!.querySelector('.field-errors')?.textContent ?? ''
    const save = async () => {
      await w.get('form').trigger('submit')
      await flushPromises()
    }
    await a.setValue('25')
    await save()
    expect(shown()).toContain(refusal)
    await a.setValue('2')
    expect(shown()).toBe('')
    expect(w.find('[data-testid=server-error]').exists()).toBe(false)
    await a.setValue('30')
    expect(shown()).toBe('must be at most 20') // the local check, until the controller answers again
    await save()
    expect(shown()).toContain(refusal)
  })

  it('counts the values to correct without calling a missing or fractional one out of range', async () => {
    // The fixture's sections are empty but for a_pkts_per_ms: every other field is missing (required).
    const w = await mountPage()
    const summary = () => w.get('[data-testid=local-count]').text()
    const missing = Number(summary().match(/^(\d+) /)![1])
    await w.get('input[name="ts_abr_qd.a_pkts_per_ms"]').setValue('0.5')
    expect(summary()).toBe(`${missing} values to correct (marked above).`)   // 0.5 is in range
    await w.get('input[name="ts_abr_qd.a_pkts_per_ms"]').setValue('')
    expect(summary()).toBe(`${missing + 1} values to correct (marked above).`)
  })

  it('sends an entry of a list of whole numbers (DSCP) that is no decimal number as typed, and keeps showing it', async () => {
    const puts: { policies: Record<string, Record<string, unknown>> }[] = []
    vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
      if (init.method === 'PUT') {
        puts.push(JSON.parse(String(init.body)))
        return json(422, { status: 422, detail: 'policies.realtime.dscp[1]: Input should be a valid integer', errors: [] })
      }
      if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: 4, topology })
      return json(200, { appliance_id: 'lab', version: 4, policies: policies() })
    }))
    const w = await mountPage()
    const dscp = w.get('input[name="realtime.dscp"]')
    await dscp.setValue('46, abc, 0x10')
    await dscp.trigger('change')
    expect((dscp.element as HTMLInputElement).value).toBe('46, abc, 0x10')
    expect(dscp.element.closest('.field')!.querySelector('.field-errors')?.textContent).toContain('abc is not a whole number')
    await w.get('form').trigger('submit')
    await flushPromises()
    expect(puts[0].policies.realtime.dscp).toEqual([46, 'abc', '0x10'])
  })

  it('keeps an edit made while the save was on its way, as an unsaved edit on the version saved', async () => {
    let stored = { version: 4, ts_abr_qd: { a_pkts_per_ms: 1, r_init_pkts: 4 } }
    let answerPut: () => void = () => {}
    vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
      if (init.method === 'PUT') {
        const body = JSON.parse(String(init.body)) as { policies: { ts_abr_qd: typeof stored.ts_abr_qd } }
        await new Promise<void>((resolve) => (answerPut = resolve))
        stored = { version: 5, ts_abr_qd: body.policies.ts_abr_qd }
        return json(201, { version: 5, appliance_id: 'lab', author: 'op', created_at: '', comment: '', parent: 4 })
      }
      if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: stored.version, topology })
      return json(200, { appliance_id: 'lab', version: stored.version, policies: { ...policies(), ts_abr_qd: stored.ts_abr_qd } })
    }))
    const w = await mountPage()
    const a = w.get('input[name="ts_abr_qd.a_pkts_per_ms"]')
    const r = w.get('input[name="ts_abr_qd.r_init_pkts"]')
    await a.setValue('2')
    await w.get('form').trigger('submit')
    await flushPromises()
    await r.setValue('7') // typed while the controller stores the save
    answerPut()
    await flushPromises()
    expect(w.get('[data-testid=notice]').text()).toContain('Saved as version 5')
    expect(stored.ts_abr_qd).toEqual({ a_pkts_per_ms: 2, r_init_pkts: 4 })
    expect((a.element as HTMLInputElement).value).toBe('2')
    expect((r.element as HTMLInputElement).value).toBe('7')
    expect(hasUnsavedEdits()).toBe(true)
  })

  it('gives a screen reader the range and the format shown beside a field, with its help', async () => {
    const w = await mountPage()
    const description = (input: string) =>
      w.get(input).attributes('aria-describedby')!.split(/\s+/).map((id) => w.get(`[id="${id}"]`).text()).join(' ')
    expect(description('input[name="ts_abr_qd.a_pkts_per_ms"]')).toContain('range')
    expect(description('input[name="realtime.dscp"]')).toContain('separated by commas')
    // a list of pairs to tick is a group: its help describes the group
    expect(description('fieldset.pairs')).toContain('Pairs that may take an idle slice')
  })
})
