import type { Branch, StepType } from '../../src/api.js';

/** A step to add to a workflow: its type and config (and a name, where the test gives one). */
export interface StepSpec {
  type: StepType;
  config?: Record<string, unknown>;
  name?: string;
}

/** A transition between two steps named by their keys, with the branch it leaves by. */
export type Edge = [from: string, to: string, branch?: Branch];

// Builders of steps whose configs the tests never vary beyond these arguments.
export const sendEmail = (templateId: string): StepSpec => ({ type: 'SEND_EMAIL', config: { templateId } });
export const condition = (...filters: Record<string, unknown>[]): StepSpec => ({
  type: 'CONDITION',
  config: { condition: { logic: 'AND', groups: [{ filters }] } },
});
export const updateContact = (config: Record<string, unknown>): StepSpec => ({ type: 'UPDATE_CONTACT', config });
export const exit = (): StepSpec => ({ type: 'EXIT', config: {} });
