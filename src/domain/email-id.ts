import { v7 } from 'uuid';

/**
 * A new email's id: a UUIDv7, whose first 48 bits are the milliseconds it was made at. New rows go
 * to the end of the primary key instead of anywhere in it, and an id alone says when its email was
 * made, which is what a time partition of `emails` needs to find it (docs/decisions.md, "Email ids
 * carry their time").
 */
export const newEmailId = (): string => v7();
