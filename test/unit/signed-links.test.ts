import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LinkSigner, subscriberUrls } from '../../src/domain/signed-links.js';

/** Subscriber tokens: four parts for all mail, five with a topic, the signature covering every part. */
describe('subscriber tokens', () => {
  const signer = new LinkSigner(Buffer.alloc(32, 7));
  const ref = { projectId: randomUUID(), contactId: randomUUID(), emailId: randomUUID() };

  it('read back what they carry, with or without a topic', () => {
    const plain = signer.subscriberToken(ref);
    expect(plain.split('.')).toHaveLength(4);
    expect(signer.readSubscriberToken(plain)).toEqual(ref);
    const topicId = randomUUID();
    const about = signer.subscriberToken({ ...ref, topicId });
    expect(about.split('.')).toHaveLength(5);
    expect(signer.readSubscriberToken(about)).toEqual({ ...ref, topicId });
  });

  it('refuse a topic added, removed or changed', () => {
    const topicId = randomUUID();
    const about = signer.subscriberToken({ ...ref, topicId });
    const parts = about.split('.');
    expect(signer.readSubscriberToken([...parts.slice(0, 3), parts[4]].join('.'))).toBeNull();
    expect(signer.readSubscriberToken(about.replace(topicId, randomUUID()))).toBeNull();
    const plain = signer.subscriberToken(ref).split('.');
    expect(signer.readSubscriberToken([...plain.slice(0, 3), topicId, plain[3]].join('.'))).toBeNull();
    expect(signer.readSubscriberToken([...parts.slice(0, 3), 'not-a-uuid', parts[4]].join('.'))).toBeNull();
  });

  it('put the topic in every subscriber URL of the email', () => {
    const topicId = randomUUID();
    const urls = subscriberUrls('https://mail.example', signer, { ...ref, topicId });
    for (const url of Object.values(urls)) expect(url).toContain(topicId);
  });
});
