import fs from 'node:fs';

const QUOTE = 0x22;
const NEWLINE = 0x0a;

/** A run of whole CSV records of a file, by byte offsets, with the header to upload them under. */
export interface CsvChunk {
  rows: Buffer;
  rowCount: number;
  /** The byte offset in the file just past this chunk: where the next one begins. */
  end: number;
}

/**
 * Where each record ends in `bytes`, given whether the scan starts inside a quoted field: a line
 * break ends a record only outside quotes (a quoted field may hold line breaks; `""` toggles twice).
 */
export function recordEnds(bytes: Buffer, inQuote: boolean): { ends: number[]; inQuote: boolean } {
  const ends: number[] = [];
  let quoted = inQuote;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === QUOTE) quoted = !quoted;
    else if (b === NEWLINE && !quoted) ends.push(i + 1);
  }
  return { ends, inQuote: quoted };
}

/** The header record of a CSV file (with its line break), read from its first bytes. */
export async function csvHeader(file: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let inQuote = false;
  for await (const piece of fs.createReadStream(file, { highWaterMark: 64 * 1024 })) {
    const buf = piece as Buffer;
    const scan = recordEnds(buf, inQuote);
    if (scan.ends.length > 0) {
      parts.push(buf.subarray(0, scan.ends[0]));
      return Buffer.concat(parts);
    }
    parts.push(buf);
    inQuote = scan.inQuote;
    if (parts.reduce((n, p) => n + p.length, 0) > 1024 * 1024) break;
  }
  const whole = Buffer.concat(parts);
  if (whole.length === 0 || whole.length > 1024 * 1024) throw new Error('The file has no CSV header line');
  return Buffer.concat([whole, Buffer.from('\n')]);
}

/**
 * The records of a CSV file from byte `start` (the end of a record: the header's, or an earlier
 * chunk's) in chunks of about `chunkBytes`, each cut at a record's end, read as a stream: memory
 * stays at a chunk or two whatever the file's size. The same file and sizes always give the same
 * chunks, so an import can resume after the last chunk it finished.
 */
export async function* csvChunks(file: string, start: number, chunkBytes: number): AsyncGenerator<CsvChunk> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let pendingRows = 0;
  let offset = start;
  let inQuote = false;
  for await (const piece of fs.createReadStream(file, { start, highWaterMark: 1024 * 1024 })) {
    const buf = piece as Buffer;
    const scan = recordEnds(buf, inQuote);
    inQuote = scan.inQuote;
    let from = 0;
    for (const end of scan.ends) {
      pendingRows++;
      if (pendingBytes + end - from < chunkBytes) continue;
      pending.push(buf.subarray(from, end));
      const rows = Buffer.concat(pending);
      offset += rows.length;
      yield { rows, rowCount: pendingRows, end: offset };
      pending = [];
      pendingBytes = 0;
      pendingRows = 0;
      from = end;
    }
    if (from < buf.length) {
      pending.push(buf.subarray(from));
      pendingBytes += buf.length - from;
    }
  }
  const rest = Buffer.concat(pending);
  if (rest.toString('utf8').trim() === '') return;
  // The last record may lack its line break.
  const trailing = rest[rest.length - 1] === NEWLINE ? 0 : 1;
  yield { rows: rest, rowCount: pendingRows + trailing, end: offset + rest.length };
}
