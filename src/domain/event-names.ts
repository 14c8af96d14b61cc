/** Names the service emits itself; clients cannot track them. */
export function isReservedEventName(name: string): boolean {
  return (
    name.startsWith('email.') ||
    name === 'contact.subscribed' ||
    name === 'contact.unsubscribed' ||
    /^segment\..+\.(entry|exit)$/.test(name)
  );
}
