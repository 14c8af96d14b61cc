import type { Contact } from '../../src/api.js';
import { type Client, expectBody } from './server.js';

/** POST /contacts, which must answer 201; returns the new contact. */
export function createContact(api: Client, body: Record<string, unknown>): Promise<Contact> {
  return expectBody(api.post('/contacts', body), 201);
}

/** GET /contacts/{id}, which must answer 200; returns the contact. */
export function getContact(api: Client, id: string): Promise<Contact> {
  return expectBody(api.get(`/contacts/${id}`));
}
