import fs from 'node:fs/promises';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

/** Where uploaded files go: `put` stores a file under `key` and answers its public URL. */
export interface FileStorage {
  put(key: string, content: Buffer, contentType: string): Promise<string>;
}

/**
 * Files under `root`, served by the service itself at `<base>/<key>`. Written aside and renamed, so
 * a reader never gets half a file.
 */
export function localStorage(root: string, publicBase: () => string): FileStorage {
  return {
    async put(key, content) {
      const target = path.join(root, key);
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(`${target}.part`, content);
      await fs.rename(`${target}.part`, target);
      return `${publicBase()}/${key}`;
    },
  };
}

export interface S3Settings {
  bucket: string;
  region: string;
  /** An S3-compatible service (MinIO, R2, …); unset for Amazon S3. Path-style addressing then. */
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Where the bucket's objects are publicly readable (a CDN, or the bucket's own URL). */
  publicUrl: string;
}

/** Files in an S3 bucket; the bucket (or a CDN in front of it) serves them. */
export function s3Storage(s: S3Settings): FileStorage {
  const client = new S3Client({
    region: s.region,
    ...(s.endpoint ? { endpoint: s.endpoint, forcePathStyle: true } : {}),
    ...(s.accessKeyId && s.secretAccessKey
      ? { credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } }
      : {}),
  });
  return {
    async put(key, content, contentType) {
      await client.send(
        new PutObjectCommand({
          Bucket: s.bucket,
          Key: key,
          Body: content,
          ContentType: contentType,
          CacheControl: 'public, max-age=31536000, immutable',
        }),
      );
      return `${s.publicUrl.replace(/\/+$/, '')}/${key}`;
    },
  };
}
