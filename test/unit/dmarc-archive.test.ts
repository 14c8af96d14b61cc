import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { expandReportFile, MAX_REPORT_XML_BYTES } from '../../src/domain/dmarc-archive.js';

const bytes = (s: string) => new TextEncoder().encode(s);

/** Rewrites the uncompressed size a zip declares for its one entry, in both headers. */
function declareSize(zip: Uint8Array, size: number): Uint8Array {
  const b = Buffer.from(zip);
  b.writeUInt32LE(size, b.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04])) + 22);
  b.writeUInt32LE(size, b.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 24);
  return new Uint8Array(b);
}

describe('expanding a report file', () => {
  it('reads XML as it is, gzip and the .xml entry of a zip', () => {
    expect(expandReportFile(bytes('<feedback/>'))).toBe('<feedback/>');
    expect(expandReportFile(gzipSync('<feedback/>'))).toBe('<feedback/>');
    expect(expandReportFile(zipSync({ 'readme.txt': bytes('hi'), 'r.xml': bytes('<feedback/>') }))).toBe('<feedback/>');
  });

  it('refuses gzip that expands past the bound', () => {
    expect(() => expandReportFile(gzipSync(Buffer.alloc(MAX_REPORT_XML_BYTES + 1, 32)))).toThrow(
      /expands to more than 20 MB/,
    );
  });

  it('refuses a zip entry declared larger than the bound, and cuts one that holds more than it declares', () => {
    const big = zipSync({ 'r.xml': new Uint8Array(1_000_000).fill(65) });
    expect(() => expandReportFile(declareSize(big, MAX_REPORT_XML_BYTES + 1))).toThrow(/expands to more than/);
    expect(expandReportFile(declareSize(big, 1000))).toHaveLength(1000);
  });

  it('refuses a zip without XML, with too many entries, or cut short', () => {
    expect(() => expandReportFile(zipSync({ 'r.txt': bytes('x') }))).toThrow(/holds no \.xml file/);
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`${i}.txt`, bytes('x')]));
    expect(() => expandReportFile(zipSync(many))).toThrow(/more than 16 entries/);
    const whole = zipSync({ 'r.xml': bytes('<feedback/>') });
    expect(() => expandReportFile(whole.subarray(0, whole.length - 10))).toThrow(/cannot be expanded/);
  });
});
