import type { EmailRecord } from '../../../../src/api.js';
import { statusBadge, type Tone } from './email-status.js';

const TONE_CLASS: Record<Tone, string> = {
  ok: 'badge badge-ok',
  pending: 'badge badge-pending',
  failed: 'badge badge-failed',
  neutral: 'badge',
};

export function StatusBadge({
  email,
}: {
  email: Pick<EmailRecord, 'status' | 'attempts' | 'bounceType' | 'complainedAt'>;
}) {
  const { label, tone } = statusBadge(email);
  return <span className={TONE_CLASS[tone]}>{label}</span>;
}
