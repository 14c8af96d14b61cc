/** Sample data for the preview, typed as JSON by a person: parsed, or explained when it is not valid. */

export type SampleData = { ok: true; data: Record<string, unknown> } | { ok: false; message: string };

/** Line and column (from 1) of a character offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

export function parseSampleData(text: string): SampleData {
  if (text.trim() === '') return { ok: true, data: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const raw = e instanceof Error ? e.message : String(e);
    // V8 says where (`at position 12`, sometimes with its own line and column); people read lines.
    const position = /position (\d+)/.exec(raw);
    const reason = raw.replace(/\s*(?:in JSON\s*)?at position \d+.*$/s, '').replace(/^JSON\.parse: /, '');
    if (position) {
      const { line, column } = lineAndColumn(text, Number(position[1]));
      return { ok: false, message: `Not valid JSON (line ${line}, column ${column}): ${reason}` };
    }
    return { ok: false, message: `Not valid JSON: ${reason}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'Sample data must be a JSON object, such as {"firstName": "Ada"}' };
  }
  return { ok: true, data: value as Record<string, unknown> };
}

/** Sample data for a test send: each key used for that send only, never stored on the contact. */
export function transientData(data: Record<string, unknown>): Record<string, { value: unknown; persistent: false }> {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, { value, persistent: false as const }]));
}
