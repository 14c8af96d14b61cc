import { type FormEvent, useState } from 'react';
import type { DeliverySettings } from '../../../../src/api.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { useUpdateDeliverySettings } from './delivery-api.js';
import { itemErrors, type Read, type SettingsPatch } from './delivery-settings.js';

/**
 * A form that adds or changes one item of a settings list (`recipientDomains`, `warmups`): its draft,
 * its own checks once submitted, and the API's field errors for that item (they name its position in
 * the list that was sent), next to the fields they are about.
 */
export function useListItemForm<D, V>(options: {
  projectId: string;
  list: keyof Pick<DeliverySettings, 'recipientDomains' | 'warmups'>;
  /** The item's fields, whose API errors are shown beside them; the form's alert says the rest. */
  fields: readonly (keyof V & string)[];
  initial: () => D;
  /** Where the item will be in the list sent, until a save says where it is. */
  initialIndex: number;
  read: (draft: D) => Read<V>;
  /** The PATCH body with the item in it, and its position in the list. */
  body: (value: V) => { body: SettingsPatch; index: number };
  onSaved: () => void;
}) {
  const save = useUpdateDeliverySettings(options.projectId);
  const [draft, setDraft] = useState<D>(options.initial);
  const [checked, setChecked] = useState(false);
  const [index, setIndex] = useState(options.initialIndex);

  const read = options.read(draft);
  const local: Partial<Record<keyof V, string>> = checked && !read.ok ? read.errors : {};
  const server: Record<string, string> =
    save.error instanceof ApiError ? itemErrors(fieldMessages(save.error.fieldErrors), options.list, index) : {};
  const error = (field: keyof V & string) => local[field] ?? server[field];
  const message = formMessage(
    save.error,
    options.fields.map((f) => `${options.list}.${index}.${f}`),
  );

  const change = (patch: Partial<D>) => {
    setDraft((d) => ({ ...d, ...patch }));
    if (save.error) save.reset();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    if (!read.ok) return;
    const { body, index: at } = options.body(read.value);
    setIndex(at);
    save.mutate(body, { onSuccess: options.onSaved });
  };
  return { draft, read, change, error, message, submit, busy: save.isPending };
}
