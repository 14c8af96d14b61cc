/**
 * The file of a DMARC aggregate report as receivers attach it (RFC 7489 §7.2.1.1): XML, gzip'd XML
 * or a zip archive holding one XML file. Expanded under hard bounds, whatever sizes the archive
 * declares: gzip output stops at the bound (zlib's `maxOutputLength`); a zip entry is inflated into a
 * buffer of its declared size, refused when that is over the bound, and cut at it when the entry
 * holds more than it declares.
 */
import { gunzipSync } from 'node:zlib';
import { unzipSync } from 'fflate';

/** The report file as received, compressed or not. */
export const MAX_REPORT_FILE_BYTES = 10 * 1024 * 1024;
/** The XML once expanded: the largest real reports seen are a few MB (tens of thousands of rows). */
export const MAX_REPORT_XML_BYTES = 20 * 1024 * 1024;
/** A zip with more entries than this is no report. */
const MAX_ZIP_ENTRIES = 16;

/** The report cannot be read within its bounds, or is not one: permanent, with the reason. */
export class ReportRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReportRefused';
  }
}

const MB = 1024 * 1024;
const isGzip = (b: Uint8Array) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

/** The report's XML as text; ReportRefused when it breaks a bound or cannot be expanded. */
export function expandReportFile(file: Uint8Array): string {
  if (file.byteLength > MAX_REPORT_FILE_BYTES)
    throw new ReportRefused(`the report file is larger than ${MAX_REPORT_FILE_BYTES / MB} MB`);
  const xml = isGzip(file) ? gunzip(file) : isZip(file) ? unzipOne(file) : file;
  if (xml.byteLength > MAX_REPORT_XML_BYTES) throw tooLarge();
  return new TextDecoder('utf-8').decode(xml);
}

const tooLarge = () => new ReportRefused(`the report expands to more than ${MAX_REPORT_XML_BYTES / MB} MB`);

function gunzip(file: Uint8Array): Uint8Array {
  try {
    return gunzipSync(file, { maxOutputLength: MAX_REPORT_XML_BYTES });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw new ReportRefused(`the gzip file cannot be expanded: ${(err as Error).message}`);
  }
}

function unzipOne(file: Uint8Array): Uint8Array {
  let entries = 0;
  let chosen: string | null = null;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(file, {
      filter: (entry) => {
        if (++entries > MAX_ZIP_ENTRIES)
          throw new ReportRefused(`the zip file has more than ${MAX_ZIP_ENTRIES} entries`);
        if (chosen !== null || !/\.xml$/i.test(entry.name)) return false;
        if (entry.originalSize > MAX_REPORT_XML_BYTES) throw tooLarge();
        chosen = entry.name;
        return true;
      },
    });
  } catch (err) {
    if (err instanceof ReportRefused) throw err;
    throw new ReportRefused(`the zip file cannot be expanded: ${(err as Error).message}`);
  }
  const xml = chosen === null ? undefined : files[chosen];
  if (!xml) throw new ReportRefused('the zip file holds no .xml file');
  return xml;
}
