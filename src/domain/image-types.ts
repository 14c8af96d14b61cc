/**
 * The image formats uploads accept, told by their first bytes rather than by the name or type the
 * client gives. SVG is not among them: it can carry scripts.
 */
const SIGNATURES: { type: string; extension: string; test: (b: Buffer) => boolean }[] = [
  {
    type: 'image/png',
    extension: 'png',
    test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  { type: 'image/jpeg', extension: 'jpg', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', extension: 'gif', test: (b) => /^GIF8[79]a$/.test(b.subarray(0, 6).toString('latin1')) },
  {
    type: 'image/webp',
    extension: 'webp',
    test: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
];

export const IMAGE_TYPES = SIGNATURES.map((s) => s.type);

export function imageTypeOf(content: Buffer): { type: string; extension: string } | null {
  const match = SIGNATURES.find((s) => s.test(content));
  return match ? { type: match.type, extension: match.extension } : null;
}

export function contentTypeOfExtension(extension: string): string | null {
  return SIGNATURES.find((s) => s.extension === extension)?.type ?? null;
}
