/**
 * The dashboard's pages, declared once: the sidebar, the phone's drawer, the ⌘K palette and the
 * not-found page all read this list. A page joins the navigation by being added here (and given a
 * route in Dashboard.tsx).
 */

export interface NavItem {
  /** Where it leads, below /app. */
  to: string;
  label: string;
  /** One line on what the page is for: the link's tooltip and the palette's hint. */
  description: string;
  /** The least role the page is for; every member sees it when absent. */
  role?: 'admin' | 'owner';
}

export interface NavGroup {
  /** Shown above the group's links; null for a group of one page that names itself (Overview). */
  heading: string | null;
  items: readonly NavItem[];
}

export const NAV_GROUPS: readonly NavGroup[] = [
  {
    heading: null,
    items: [{ to: '/overview', label: 'Overview', description: 'What was sent, opened and clicked, and first steps' }],
  },
  {
    heading: 'Audience',
    items: [
      { to: '/contacts', label: 'Contacts', description: 'The people you send to, their data and subscription' },
      { to: '/segments', label: 'Segments', description: 'Groups of contacts by their data and what they did' },
      { to: '/events', label: 'Events', description: 'What contacts did in your product, as tracked' },
      { to: '/forms', label: 'Signup forms', description: 'Forms that grow your list, with double opt-in' },
      { to: '/topics', label: 'Topics', description: 'What your mail is about, for contacts to choose' },
      { to: '/suppressions', label: 'Suppressions', description: 'Addresses no mail goes to, and why' },
    ],
  },
  {
    heading: 'Messaging',
    items: [
      { to: '/campaigns', label: 'Campaigns', description: 'One email to a segment, now or on a schedule' },
      { to: '/workflows', label: 'Workflows', description: 'Automations that send and wait on what contacts do' },
      { to: '/templates', label: 'Templates', description: 'Reusable emails with Liquid placeholders' },
      { to: '/emails', label: 'Emails', description: 'Every message sent, with its status and content' },
      { to: '/inbound', label: 'Inbound', description: 'Mail received at your domains, such as replies' },
    ],
  },
  {
    heading: 'Reporting',
    items: [
      { to: '/activity', label: 'Activity', description: 'Opens, clicks, bounces and more as they happen' },
      {
        to: '/audit-log',
        label: 'Audit log',
        description: 'Who changed what in this project, and when',
        role: 'admin',
      },
    ],
  },
  {
    heading: 'Setup',
    items: [
      { to: '/domains', label: 'Domains', description: 'Sending domains and their DNS records' },
      { to: '/delivery', label: 'Delivery', description: 'How fast campaign email goes out, per domain' },
      { to: '/webhooks', label: 'Webhooks', description: 'Events posted to your own endpoints' },
      { to: '/api-keys', label: 'API keys', description: 'A key per integration, with only the access it needs' },
      { to: '/members', label: 'Members', description: 'Who can use this project, and invitations' },
      { to: '/settings', label: 'Settings', description: 'The project’s name, its own key pair, and turning it off' },
      { to: '/account', label: 'Account', description: 'Your two-factor sign-in, sessions and password' },
    ],
  },
];

/** A page with the name of its group, as the palette lists it. */
export interface NavPage extends NavItem {
  group: string;
}

/** Every page in the order of the sidebar, each with its group (Overview is its own). */
export const NAV_ITEMS: readonly NavPage[] = NAV_GROUPS.flatMap((g) =>
  g.items.map((item) => ({ ...item, group: g.heading ?? item.label })),
);

/** The page the address is on or below (`/contacts/123` is under Contacts), if any. */
export function currentNavItem(pathname: string): NavPage | undefined {
  return NAV_ITEMS.find((item) => pathname === item.to || pathname.startsWith(`${item.to}/`));
}
