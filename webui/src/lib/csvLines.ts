// The records of a CSV file, each with the line of the file it starts on, so a problem is
// named where an editor shows it: blank lines and line breaks inside quoted cells count,
// as they do in the file (Papa's row index counts neither).
import Papa from 'papaparse'

export interface CsvRecord {
  cells: string[]
  line: number // 1-based
  errors: string[] // what the parser found wrong in this record (an unclosed quote)
}

const linesIn = (s: string, linebreak: string): number => (linebreak ? s.split(linebreak).length - 1 : 0)

/** Every record of `text` but blank ones (a leading byte-order mark dropped). */
export function csvRecords(text: string): CsvRecord[] {
  const src = text.replace(/^\uFEFF/, '')
  const out: CsvRecord[] = []
  let [start, line] = [0, 1]
  Papa.parse<string[]>(src, {
    step: (r) => {
      const end = r.meta.cursor
      if (r.data.some((c) => c.trim() !== '') || r.errors.length) out.push({ cells: r.data, line, errors: r.errors.map((e) => e.message) })
      line += linesIn(src.slice(start, end), r.meta.linebreak)
      start = end
    },
  })
  return out
}
