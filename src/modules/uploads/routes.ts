import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import multipart from '@fastify/multipart';
import { z } from 'zod';
import { contentTypeOfExtension, IMAGE_TYPES, imageTypeOf } from '../../domain/image-types.js';
import { projectOf } from '../../platform/http/auth.js';
import { created } from '../../platform/http/envelope.js';
import { AppError } from '../../platform/http/errors.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import { readUpload } from '../../platform/http/uploads.js';
import { localStorage, s3Storage } from '../../platform/storage.js';
import * as audit from '../audit/service.js';

/** Template images are small; 5 MB leaves room for a large photo. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const uploadSchema = z.object({
  url: z.string(),
  contentType: z.string(),
  size: z.number().int(),
});

const FILE_NAME = /^[0-9a-f]{32}\.(png|jpg|gif|webp)$/;

/**
 * `POST /uploads/image` (multipart, one `file` field) stores an image as `<project>/<random name>`, in
 * the S3 bucket when one is configured, else under `DATA_DIR/uploads/`, and answers its public URL.
 * Local files are served by `GET /uploads/<project>/<name>` without a key (mail clients fetch them),
 * with a long cache lifetime since a name is never reused.
 */
export const uploadRoutes = moduleRoutes(
  'Uploads',
  async (app, ctx) => {
    await app.register(multipart, { limits: { fileSize: MAX_IMAGE_BYTES, files: 1, fields: 5, parts: 6 } });
    const root = path.join(ctx.config.dataDir, 'uploads');
    const storage = ctx.config.s3
      ? s3Storage(ctx.config.s3)
      : localStorage(root, () => `${ctx.config.publicUrl}/uploads`);

    app.post(
      '/uploads/image',
      { schema: { consumes: ['multipart/form-data'], response: { 201: uploadSchema } } },
      async (req, reply) => {
        if (!req.isMultipart())
          throw new AppError(400, 'INVALID_UPLOAD', 'Send the image as multipart/form-data in a field named file');
        const file = await req.file().catch(() => undefined);
        if (file?.fieldname !== 'file')
          throw new AppError(400, 'INVALID_UPLOAD', 'Send the image as multipart/form-data in a field named file');
        const content = await readUpload(
          file,
          `An image may be at most ${MAX_IMAGE_BYTES / 1024 / 1024} MB`,
          () => new AppError(400, 'INVALID_UPLOAD', 'The upload could not be read'),
        );
        const image = imageTypeOf(content);
        if (!image) {
          throw new AppError(415, 'UNSUPPORTED_IMAGE_TYPE', `Only ${IMAGE_TYPES.join(', ')} images are accepted`, {
            details: { declaredType: file.mimetype },
          });
        }
        const key = `${projectOf(req).id}/${randomBytes(16).toString('hex')}.${image.extension}`;
        const url = await storage.put(key, content, image.type).catch((err) => {
          ctx.log.error({ err }, 'storing an upload failed');
          throw new AppError(503, 'STORAGE_UNAVAILABLE', 'The file could not be stored; try again');
        });
        // The file is stored outside the database: its entry follows it (a failed store leaves none).
        await audit.record(ctx.db, {
          projectId: projectOf(req).id,
          action: 'upload.created',
          target: { type: 'upload', id: key },
          changes: { contentType: image.type, size: content.length },
        });
        return created(reply, { url, contentType: image.type, size: content.length });
      },
    );

    app.get(
      '/uploads/:project/:name',
      {
        config: { auth: 'none' },
        schema: { hide: true, params: z.object({ project: z.string().uuid(), name: z.string().regex(FILE_NAME) }) },
      },
      async (req, reply) => {
        const file = path.join(root, req.params.project, req.params.name);
        const stat = await fs.stat(file).catch(() => null);
        if (!stat) throw new AppError(404, 'NOT_FOUND', 'No such upload');
        const type = contentTypeOfExtension(req.params.name.split('.').pop()!)!;
        return reply
          .header('content-type', type)
          .header('content-length', stat.size)
          .header('cache-control', 'public, max-age=31536000, immutable')
          .header('x-content-type-options', 'nosniff')
          .send(createReadStream(file));
      },
    );
  },
  { scope: 'templates' },
);
