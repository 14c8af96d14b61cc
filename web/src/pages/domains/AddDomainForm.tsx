import { type FormEvent, useState } from 'react';
import { useAddDomain } from '../../api/domains.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { Field } from '../../components/Field.js';

export function AddDomainForm({ projectId }: { projectId: string }) {
  const add = useAddDomain(projectId);
  const [name, setName] = useState('');

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    add.mutate(name.trim(), { onSuccess: () => setName('') });
  };

  const fields = add.error instanceof ApiError ? fieldMessages(add.error.fieldErrors) : {};
  const message = formMessage(add.error, ['domain']);
  return (
    <form className="card add-domain" onSubmit={submit} noValidate aria-labelledby="add-domain-title">
      <h2 id="add-domain-title">Add domain</h2>
      {message && !fields.domain && <Alert>{message}</Alert>}
      <div className="form-row">
        <Field
          label="Domain name"
          name="domain"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="example.com"
          autoComplete="off"
          spellCheck={false}
          required
          error={fields.domain}
        />
        <button type="submit" className="button button-primary" disabled={add.isPending}>
          {add.isPending ? 'Adding…' : 'Add domain'}
        </button>
      </div>
    </form>
  );
}
