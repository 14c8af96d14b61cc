import type { UseQueryResult } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { useContactCount } from '../../api/contacts.js';
import { useDomains } from '../../api/domains.js';
import { useMembers, usePendingInvites } from '../../api/members.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { useEmailsPage } from '../emails/emails-api.js';

/** Done, not yet, or not known (still asking, or the answer failed). */
type StepState = boolean | null;

interface Step {
  title: string;
  to: string;
  detail: string;
  done: StepState;
}

const stateOf = <T,>(query: UseQueryResult<T>, done: (data: T) => boolean): StepState =>
  query.isSuccess ? done(query.data) : null;

/**
 * What a new project needs before it is of use, each step ticked from what the API says exists:
 * shown on Overview until every step is done.
 */
export function FirstSteps() {
  const project = useCurrentProject();
  const manages = project.role !== 'member';
  const domains = useDomains(project.id);
  const emails = useEmailsPage(project.id, { limit: 1 });
  const contacts = useContactCount(project.id);
  const members = useMembers(project.id);
  const invites = usePendingInvites(project.id, manages);

  const invited = stateOf(members, (list) => list.length > 1);
  const sent = stateOf(emails, (page) => page.data.length > 0);
  const steps: Step[] = [
    {
      title: 'Add your sending domain, or try capture',
      to: '/domains',
      detail:
        'Publish its DNS records so mail is signed and trusted. Without an SMTP relay every message is captured here and nothing leaves, so a first email tries it out.',
      // An email sent means a domain was added or capture was tried (a relay sends only from verified domains).
      done: sent === true ? true : stateOf(domains, (list) => list.length > 0),
    },
    {
      title: 'Send a first email',
      to: '/templates',
      detail: 'A test from a template, or POST /v1/send with the project’s secret key.',
      done: sent,
    },
    {
      title: 'Import your contacts',
      to: '/contacts/import',
      detail: 'From a CSV file, or one at a time; POST /v1/track adds them as they use your product.',
      done: stateOf(contacts, (total) => total > 0),
    },
    {
      title: 'Invite a member',
      to: '/members',
      detail: 'Colleagues who write and send the email, each with a role.',
      done: invited === true || !manages ? invited : stateOf(invites, (list) => list.length > 0),
    },
  ];
  if (steps.every((s) => s.done === true)) return null;

  const done = steps.filter((s) => s.done === true).length;
  return (
    <section className="card stack first-steps" aria-labelledby="first-steps-title">
      <div>
        <h2 id="first-steps-title">First steps</h2>
        <p className="muted">{`${done} of ${steps.length} done. This list goes away once all are.`}</p>
      </div>
      <ol className="plain-list first-steps-list">
        {steps.map((step) => (
          <li key={step.to} className={step.done ? 'is-done' : undefined}>
            <span className="first-steps-mark" aria-hidden="true">
              {step.done ? '✓' : ''}
            </span>
            <span className="visually-hidden">{step.done ? 'Done: ' : step.done === false ? 'To do: ' : ''}</span>
            <div>
              <Link to={step.to}>{step.title}</Link>
              <p className="muted small">{step.detail}</p>
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}
