import type { FastifyReply } from 'fastify';

/**
 * The `{ success: true, data }` answer the API gives to creates and actions (reads answer the
 * resource itself); `message` tells a person what happened. Routes wrap, services return the data.
 */
export function wrapped<T>(data: T): { success: true; data: T };
export function wrapped<T>(data: T, message: string): { success: true; data: T; message: string };
export function wrapped<T>(data: T, message?: string) {
  return message === undefined ? { success: true as const, data } : { success: true as const, data, message };
}

/** Answers 201 Created with what `making` resolves to. */
export async function created<T>(reply: FastifyReply, making: T | Promise<T>): Promise<T> {
  const data = await making;
  reply.status(201);
  return data;
}

/** Answers 204 No Content once `doing` has finished. */
export async function noContent(reply: FastifyReply, doing: Promise<unknown>): Promise<FastifyReply> {
  await doing;
  return reply.status(204).send();
}
