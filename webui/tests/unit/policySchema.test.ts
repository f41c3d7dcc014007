import { describe, expect, it } from 'vitest'
import { checkValue, policySections, rangeText } from '../../src/lib/policySchema'

const field = (section: string, key: string) => {
  const f = policySections().find((s) => s.key === section)?.fields.find((x) => x.key === key)
  if (!f) throw new Error(`no field ${section}.${key}`)
  return f
}

describe('policy form fields from the configuration schema', () => {
  it('has every policy section of the schema, the batch adaptation first', () => {
    const keys = policySections().map((s) => s.key)
    expect(keys).toEqual(expect.arrayContaining(['aggregation_target', 'dynamic_slicing', 'queue_sizing', 'realtime', 'ts_abr_qd']))
    expect(keys[0]).toBe('ts_abr_qd')
    expect(policySections()[0].title).toBe('Time-slice batches (TS-ABR-QD)')
  })

  it("takes the Robbins-Monro gain's open lower bound, maximum and help text", () => {
    const a = field('ts_abr_qd', 'a_pkts_per_ms')
    expect(a.kind).toBe('number')
    expect(rangeText(a)).toBe('range (0, 20]')
    expect(a.help).toMatch(/Robbins-Monro gain/)
    expect(checkValue(a, 0)).toBe('must be greater than 0')
    expect(checkValue(a, 20)).toBeNull()
    expect(checkValue(a, 20.5)).toBe('must be at most 20')
  })

  it('knows integer fields, pair lists and integer lists', () => {
    expect(checkValue(field('ts_abr_qd', 'r_init_pkts'), 2.5)).toBe('must be a whole number')
    expect(field('dynamic_slicing', 'pairs').kind).toBe('pairs')
    const dscp = field('realtime', 'dscp')
    expect(dscp.kind).toBe('integers')
    expect(checkValue(dscp, [46, 64])).toBe('64 is not a whole number in 0–63')
  })
})
