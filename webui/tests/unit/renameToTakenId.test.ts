// Renaming an AP or a STA in the topology editor to an id another one already has is refused
// beside the field: the id stays as it was and nothing that names it changes.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mountPage, save, setField, signIn, stubApi, topology } from './topologyEditorPage'

beforeEach(signIn)
afterEach(() => vi.unstubAllGlobals())

describe('renaming to an id that is taken', () => {
  it.each([
    { row: 'AP 1', own: 'ap1', taken: 'ap2', message: 'ap2 is already the id of AP 2' },
    { row: 'STA 1', own: 'sta1', taken: 'sta2', message: 'sta2 is already the id of STA 2' },
  ])('refuses $row renamed to $taken beside the field, and leaves it and its references as they were', async ({ row, own, taken, message }) => {
    const sent = stubApi()
    const w = await mountPage()
    await setField(w, `${row} id`, taken)
    const input = w.get(`[aria-label="${row} id"]`)
    expect((input.element as HTMLInputElement).value).toBe(own)
    expect(input.element.parentElement!.textContent).toContain(message)
    await save(w)
    expect(sent[0].method).toBe('PUT')
    expect(sent[0].body.topology).toEqual(topology())
  })
})
