import type { MultipartFile } from '@fastify/multipart';
import { AppError } from './errors.js';

/**
 * The whole of an uploaded file, or 413 `FILE_TOO_LARGE` (saying `limit`) when it passed the size
 * limit the multipart parser was given. The parser notices an overflow chunk by chunk and misses
 * one reached with the last chunk, returning the cut-off file; its `truncated` flag does not miss it.
 */
export async function readUpload(file: MultipartFile, limit: string, unreadable: () => AppError): Promise<Buffer> {
  const tooLarge = () => new AppError(413, 'FILE_TOO_LARGE', limit);
  const content = await file.toBuffer().catch((err: { code?: string }) => {
    throw err.code === 'FST_REQ_FILE_TOO_LARGE' ? tooLarge() : unreadable();
  });
  if (file.file.truncated) throw tooLarge();
  return content;
}
