import { classifyFailure, type MailTransport } from '../mail/transport.js';
import type { Metrics, RelayResult } from './registry.js';

/**
 * The transport, counting each email handed to it by the relay's answer, timing the answer and
 * keeping the number still unanswered: `rate(postbox_relay_messages_total{result="accepted"}[5m])`
 * is the delivery rate. Errors are classified as the delivery engine classifies them.
 */
export function instrumentTransport(transport: MailTransport, metrics: Metrics): MailTransport {
  return {
    async send(message, hooks) {
      const stopTimer = metrics.relayDuration.startTimer();
      metrics.relayInFlight.inc();
      let result: RelayResult = 'accepted';
      try {
        return await transport.send(message, hooks);
      } catch (err) {
        result = classifyFailure(err) === 'permanent' ? 'rejected' : 'deferred';
        throw err;
      } finally {
        metrics.relayInFlight.dec();
        metrics.relayMessages.inc({ result });
        stopTimer({ result });
      }
    },
    close: () => transport.close(),
  };
}
