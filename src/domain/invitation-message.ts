import { escapeHtml } from './email-html.js';

/**
 * The email that carries an invitation's link. Names and addresses come from users, so they are
 * escaped for HTML and kept out of Liquid (`{% raw %}`): the message renders as written.
 */
export function invitationMessage(input: {
  projectName: string;
  inviterEmail: string | null;
  role: string;
  url: string;
  days: number;
}): { subject: string; html: string } {
  const who = input.inviterEmail ? escapeHtml(input.inviterEmail) : 'Someone';
  const project = escapeHtml(input.projectName);
  const url = escapeHtml(input.url);
  const html =
    `<p>${who} invited you to join <strong>${project}</strong> on Postbox as ${input.role === 'admin' ? 'an' : 'a'} ` +
    `${escapeHtml(input.role)}.</p>` +
    `<p><a href="${url}">Accept the invitation</a></p>` +
    `<p>Or open this link: ${url}</p>` +
    `<p>It works once and for ${input.days} days. If you did not expect it, ignore this email.</p>`;
  return {
    subject: `{% raw %}Join ${input.projectName} on Postbox{% endraw %}`,
    html: `{% raw %}${html}{% endraw %}`,
  };
}
