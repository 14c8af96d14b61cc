/** A person's name from a contact's free-form data, under the keys people commonly use; null if none. */
export function contactName(data: Record<string, unknown>): string | null {
  const str = (key: string) => {
    const v = data[key];
    return typeof v === 'string' ? v.trim() : '';
  };
  const full = str('name') || str('fullName') || str('full_name');
  if (full) return full;
  const parts = [str('firstName') || str('first_name'), str('lastName') || str('last_name')].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : null;
}

export function subscriptionLabel(contact: { subscribed: boolean; snoozedUntil: string | null }): string {
  if (contact.subscribed) return 'Subscribed';
  return contact.snoozedUntil ? 'Snoozed' : 'Unsubscribed';
}

/** The time a snooze of `days` from `now` ends. */
export function snoozeEnd(days: number, now: Date): string {
  return new Date(now.getTime() + days * 24 * 60 * 60 * 1000).toISOString();
}
