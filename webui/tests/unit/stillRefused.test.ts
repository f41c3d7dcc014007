import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/api/client'
import { stillRefused } from '../../src/lib/stillRefused'

const sent = { topology: { aps: [{ id: 'ap1', vlan: '12a' }, { id: 'ap2', vlan: 5000 }] }, comment: '' }
const refusal = new ApiError(422, 'two fields', 'topology.aps[0].vlan', [
  { field: 'topology.aps[0].vlan', message: 'not an integer', type: 'int_parsing' },
  { field: 'topology.aps[1].vlan.int', message: 'at most 4094', type: 'less_than_equal' },
])
const edit = (vlans: unknown[]) => ({ ...sent, topology: { aps: sent.topology.aps.map((a, i) => ({ ...a, vlan: vlans[i] })) } })

describe('stillRefused', () => {
  it('keeps the messages of the fields that still hold the value refused, and only those', () => {
    expect(stillRefused(refusal, sent, edit(['12a', 5000]))).toBe(refusal)
    expect(stillRefused(refusal, sent, edit([12, 5000]))!.errors.map((e) => e.message)).toEqual(['at most 4094'])
    expect(stillRefused(refusal, sent, edit([12, 7]))).toBeNull()
  })

  it('keeps a refusal about what the form does not hold (base_version) whatever is edited', () => {
    const stale = new ApiError(409, 'version 4 is no longer the newest', 'base_version', [])
    expect(stillRefused(stale, sent, edit([1, 2]))).toBe(stale)
  })
})
