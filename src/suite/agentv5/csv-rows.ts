/** One CSV record: its fields, and the line it starts on (1-based). */
interface CsvRecord {
  fields: string[];
  line: number;
}

export type CsvRead = { ok: true; records: CsvRecord[] } | { ok: false; line: number; message: string };

/**
 * RFC 4180 CSV: fields split on commas, records on CRLF or LF; a quoted field may hold commas,
 * line breaks and doubled quotes. A leading BOM is dropped, blank lines are skipped. Each record
 * keeps the line it starts on so a problem in it can be reported at file:line. Written here
 * rather than taken from a library: the grammar is small and the line of each record is what
 * the loader needs, which the streaming parsers only give through their own record objects.
 */
export function readCsv(text: string): CsvRead {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let start = 1;
  let quoted = false;
  let wasQuoted = false;
  const endRecord = () => {
    fields.push(field);
    if (fields.length > 1 || fields[0] !== '' || wasQuoted) records.push({ fields, line: start });
    fields = [];
    field = '';
    wasQuoted = false;
  };
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (quoted) {
      if (ch === '"' && src[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
        const next = src[i + 1];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r')
          return {
            ok: false,
            line,
            message: 'a closing quote must end its field (write "" for a quote inside)',
          };
      } else {
        if (ch === '\n') line++;
        field += ch;
      }
      continue;
    }
    if (ch === '"') {
      if (field !== '')
        return { ok: false, line, message: 'a quote inside an unquoted field (quote the whole field)' };
      quoted = true;
      wasQuoted = true;
    } else if (ch === ',') {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && src[i + 1] === '\n') i++;
      endRecord();
      line++;
      start = line;
    } else field += ch;
  }
  if (quoted)
    return { ok: false, line: start, message: 'a quoted field is not closed before the end of the file' };
  if (field !== '' || fields.length > 0 || wasQuoted) endRecord();
  return { ok: true, records };
}
