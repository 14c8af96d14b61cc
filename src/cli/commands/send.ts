import { type Command, stringFlag } from '../command.js';
import { CliError, EXIT } from '../exit-codes.js';
import { jsonObjectFlag, readFlagFile } from '../json-flag.js';

interface SendAnswer {
  data: { emails: { contact: { id: string; email: string }; email: string }[]; timestamp: string };
}

export const sendCommand: Command = {
  name: 'send',
  summary: 'Send an email (POST /v1/send)',
  usage: '--to ADDRESS [--to ADDRESS…] (--subject TEXT --body HTML | --template ID) [--from ADDRESS]',
  help:
    '  --to ADDRESS          a recipient; repeat for more (one email each)\n' +
    '  --from ADDRESS        the sender (the template’s when omitted)\n' +
    '  --subject TEXT        the subject (Liquid)\n' +
    '  --body HTML           the body (Liquid HTML); --body-file FILE reads it from a file\n' +
    '  --template ID         a saved template instead of --subject and --body\n' +
    '  --data JSON           placeholder values, stored on the contact: \'{"name":"Ada"}\' or @data.json\n' +
    '  --reply ADDRESS       the Reply-To address\n' +
    '  --idempotency-key K   send at most once for this key, however often the command is retried\n\n' +
    'Example: postbox send --to ada@example.com --from hi@acme.test --subject "Hi {{ name }}" --body "<p>Hello</p>" --data \'{"name":"Ada"}\'',
  options: {
    to: { type: 'string', multiple: true },
    from: { type: 'string' },
    subject: { type: 'string' },
    body: { type: 'string' },
    'body-file': { type: 'string' },
    template: { type: 'string' },
    data: { type: 'string' },
    reply: { type: 'string' },
    'idempotency-key': { type: 'string' },
  },
  remote: true,
  async run(ctx) {
    const v = ctx.values;
    const to = (v.to as string[] | undefined) ?? [];
    if (to.length === 0) throw new CliError(EXIT.usage, 'send needs at least one --to address');
    const bodyFile = stringFlag(v, 'body-file');
    const body = bodyFile ? readFlagFile('body-file', bodyFile) : stringFlag(v, 'body');
    const template = stringFlag(v, 'template');
    if (!template && (stringFlag(v, 'subject') === undefined || body === undefined)) {
      throw new CliError(EXIT.usage, 'send needs --subject and --body (or --body-file), or a --template');
    }
    const key = stringFlag(v, 'idempotency-key');
    const answer = await ctx.api().post<SendAnswer>(
      '/v1/send',
      {
        to: to.length === 1 ? to[0] : to,
        from: stringFlag(v, 'from'),
        subject: stringFlag(v, 'subject'),
        body,
        template,
        data: jsonObjectFlag('data', stringFlag(v, 'data')),
        reply: stringFlag(v, 'reply'),
      },
      key ? { 'idempotency-key': key } : {},
    );
    ctx.print(answer.data.emails.map((e) => `Sent to ${e.contact.email}: email ${e.email}`).join('\n'), answer.data);
  },
};

export const trackCommand: Command = {
  name: 'track',
  summary: 'Track an event for a contact (created when new)',
  usage: 'EMAIL EVENT [--data JSON] [--subscribed true|false]',
  help:
    '  --data JSON         event data, also merged into the contact’s data: \'{"plan":"pro"}\' or @data.json\n' +
    '  --subscribed BOOL   set the contact’s subscription\n\n' +
    'Example: postbox track ada@example.com signed_up --data \'{"plan":"pro"}\'',
  options: { data: { type: 'string' }, subscribed: { type: 'string' } },
  remote: true,
  async run(ctx) {
    const [email, event] = ctx.positionals;
    if (!email || !event) throw new CliError(EXIT.usage, 'track needs an EMAIL and an EVENT');
    const subscribed = stringFlag(ctx.values, 'subscribed');
    if (subscribed !== undefined && subscribed !== 'true' && subscribed !== 'false') {
      throw new CliError(EXIT.usage, '--subscribed is true or false');
    }
    const answer = await ctx
      .api()
      .post<{ data: { contact: string; event: string; timestamp: string } }>('/events/track', {
        email,
        event,
        data: jsonObjectFlag('data', stringFlag(ctx.values, 'data')),
        ...(subscribed === undefined ? {} : { subscribed: subscribed === 'true' }),
      });
    ctx.print(`Tracked ${event} for ${email}: event ${answer.data.event}`, answer.data);
  },
};
