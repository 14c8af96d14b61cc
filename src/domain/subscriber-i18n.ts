import { escapeHtml } from './email-html.js';

/**
 * The words recipients read: the footer under marketing email and the subscriber pages
 * (unsubscribe, resubscribe, manage). Chosen by the contact's `data.locale`.
 */
export const LOCALES = ['en', 'de', 'fr', 'es', 'pt'] as const;
export type Locale = (typeof LOCALES)[number];

export interface SubscriberStrings {
  unsubscribe: string;
  managePreferences: string;
  preferencesTitle: string;
  unsubscribeQuestion: string;
  /** `{email}` is replaced by the address. */
  unsubscribeExplain: string;
  unsubscribedTitle: string;
  unsubscribedText: string;
  unsubscribedByMistake: string;
  resubscribe: string;
  resubscribeQuestion: string;
  resubscribeExplain: string;
  subscribedTitle: string;
  subscribedText: string;
  emailAddress: string;
  status: string;
  statusSubscribed: string;
  statusUnsubscribed: string;
  /** `{date}` is replaced by the end of the snooze. */
  statusSnoozed: string;
  snoozeHeading: string;
  snoozeExplain: string;
  /** `{n}` is replaced by the number of days. */
  snoozeDays: string;
  saved: string;
  /** `{topic}` is replaced by the topic's name. */
  unsubscribeTopicQuestion: string;
  /** `{topic}` and `{email}`. */
  unsubscribeTopicExplain: string;
  unsubscribedTopicTitle: string;
  /** `{topic}` and `{email}`. */
  unsubscribedTopicText: string;
  /** `{topic}`. */
  resubscribeTopicQuestion: string;
  /** `{topic}` and `{email}`. */
  resubscribeTopicExplain: string;
  /** `{topic}`. */
  resubscribedTopicTitle: string;
  /** `{topic}` and `{email}`. */
  resubscribedTopicText: string;
  topicsHeading: string;
  topicsExplain: string;
  noSnooze: string;
  unsubscribeAll: string;
  unsubscribeAllExplain: string;
  savePreferences: string;
  notFoundTitle: string;
  notFoundText: string;
  badRequestTitle: string;
  badRequestText: string;
  errorTitle: string;
  errorText: string;
}

const STRINGS: Record<Locale, SubscriberStrings> = {
  en: {
    unsubscribe: 'Unsubscribe',
    managePreferences: 'Manage preferences',
    preferencesTitle: 'Email preferences',
    unsubscribeQuestion: 'Unsubscribe?',
    unsubscribeExplain: 'Stop sending these emails to {email}?',
    unsubscribedTitle: 'You have been unsubscribed',
    unsubscribedText: '{email} will no longer receive these emails.',
    unsubscribedByMistake: 'Unsubscribed by mistake?',
    resubscribe: 'Resubscribe',
    resubscribeQuestion: 'Resubscribe?',
    resubscribeExplain: 'Start receiving these emails at {email} again?',
    subscribedTitle: 'You are subscribed',
    subscribedText: '{email} will receive these emails.',
    emailAddress: 'Email address',
    status: 'Status',
    statusSubscribed: 'Subscribed',
    statusUnsubscribed: 'Unsubscribed',
    statusSnoozed: 'Snoozed until {date}',
    snoozeHeading: 'Take a break',
    snoozeExplain: 'Pause these emails for a while; they start again on their own afterwards.',
    snoozeDays: '{n} days',
    saved: 'Your preferences have been saved.',
    unsubscribeTopicQuestion: 'Unsubscribe from {topic}?',
    unsubscribeTopicExplain: 'Stop sending emails about {topic} to {email}? Other emails keep coming.',
    unsubscribedTopicTitle: 'You have left {topic}',
    unsubscribedTopicText: '{email} will no longer receive emails about {topic}. Other emails keep coming.',
    resubscribeTopicQuestion: 'Receive {topic} again?',
    resubscribeTopicExplain: 'Start sending emails about {topic} to {email} again?',
    resubscribedTopicTitle: 'You receive {topic} again',
    resubscribedTopicText: '{email} will receive emails about {topic} again.',
    topicsHeading: 'What you receive',
    topicsExplain: 'Choose the topics you want to hear about.',
    noSnooze: 'No break',
    unsubscribeAll: 'Unsubscribe from everything',
    unsubscribeAllExplain: 'No marketing email at all, whatever the topics say.',
    savePreferences: 'Save preferences',
    notFoundTitle: 'Link not valid',
    notFoundText: 'This link is not valid, or the subscription it belongs to no longer exists.',
    badRequestTitle: 'Request not understood',
    badRequestText: 'That action is not available. Please go back and try again.',
    errorTitle: 'Something went wrong',
    errorText: 'Please try again later.',
  },
  de: {
    unsubscribe: 'Abmelden',
    managePreferences: 'Einstellungen verwalten',
    preferencesTitle: 'E-Mail-Einstellungen',
    unsubscribeQuestion: 'Abmelden?',
    unsubscribeExplain: 'Möchten Sie diese E-Mails an {email} nicht mehr erhalten?',
    unsubscribedTitle: 'Sie wurden abgemeldet',
    unsubscribedText: 'An {email} werden diese E-Mails nicht mehr gesendet.',
    unsubscribedByMistake: 'Versehentlich abgemeldet?',
    resubscribe: 'Wieder anmelden',
    resubscribeQuestion: 'Wieder anmelden?',
    resubscribeExplain: 'Möchten Sie diese E-Mails an {email} wieder erhalten?',
    subscribedTitle: 'Sie sind angemeldet',
    subscribedText: 'An {email} werden diese E-Mails gesendet.',
    emailAddress: 'E-Mail-Adresse',
    status: 'Status',
    statusSubscribed: 'Angemeldet',
    statusUnsubscribed: 'Abgemeldet',
    statusSnoozed: 'Pausiert bis {date}',
    snoozeHeading: 'Eine Pause einlegen',
    snoozeExplain: 'Pausieren Sie diese E-Mails für eine Weile; danach erhalten Sie sie automatisch wieder.',
    snoozeDays: '{n} Tage',
    saved: 'Ihre Einstellungen wurden gespeichert.',
    unsubscribeTopicQuestion: 'Von {topic} abmelden?',
    unsubscribeTopicExplain: 'Keine E-Mails zu {topic} mehr an {email} senden? Andere E-Mails kommen weiterhin.',
    unsubscribedTopicTitle: 'Sie haben {topic} abbestellt',
    unsubscribedTopicText: '{email} erhält keine E-Mails zu {topic} mehr. Andere E-Mails kommen weiterhin.',
    resubscribeTopicQuestion: '{topic} wieder erhalten?',
    resubscribeTopicExplain: 'Wieder E-Mails zu {topic} an {email} senden?',
    resubscribedTopicTitle: 'Sie erhalten {topic} wieder',
    resubscribedTopicText: '{email} erhält wieder E-Mails zu {topic}.',
    topicsHeading: 'Was Sie erhalten',
    topicsExplain: 'Wählen Sie die Themen, über die Sie informiert werden möchten.',
    noSnooze: 'Keine Pause',
    unsubscribeAll: 'Von allem abmelden',
    unsubscribeAllExplain: 'Gar keine Marketing-E-Mails, unabhängig von den Themen.',
    savePreferences: 'Einstellungen speichern',
    notFoundTitle: 'Ungültiger Link',
    notFoundText: 'Dieser Link ist ungültig, oder das zugehörige Abonnement existiert nicht mehr.',
    badRequestTitle: 'Anfrage nicht verstanden',
    badRequestText: 'Diese Aktion ist nicht verfügbar. Bitte gehen Sie zurück und versuchen Sie es erneut.',
    errorTitle: 'Etwas ist schiefgelaufen',
    errorText: 'Bitte versuchen Sie es später noch einmal.',
  },
  fr: {
    unsubscribe: 'Se désabonner',
    managePreferences: 'Gérer mes préférences',
    preferencesTitle: 'Préférences e-mail',
    unsubscribeQuestion: 'Se désabonner\u00a0?',
    unsubscribeExplain: 'Ne plus recevoir ces e-mails à l’adresse {email}\u00a0?',
    unsubscribedTitle: 'Votre désabonnement est confirmé',
    unsubscribedText: 'L’adresse {email} ne recevra plus ces e-mails.',
    unsubscribedByMistake: 'Désabonné par erreur\u00a0?',
    resubscribe: 'Se réabonner',
    resubscribeQuestion: 'Se réabonner\u00a0?',
    resubscribeExplain: 'Recevoir à nouveau ces e-mails à l’adresse {email}\u00a0?',
    subscribedTitle: 'Votre abonnement est actif',
    subscribedText: 'L’adresse {email} recevra ces e-mails.',
    emailAddress: 'Adresse e-mail',
    status: 'Statut',
    statusSubscribed: 'Abonné',
    statusUnsubscribed: 'Désabonné',
    statusSnoozed: 'En pause jusqu’au {date}',
    snoozeHeading: 'Faire une pause',
    snoozeExplain: 'Suspendez ces e-mails pendant quelque temps\u00a0; ils reprendront ensuite automatiquement.',
    snoozeDays: '{n} jours',
    saved: 'Vos préférences ont été enregistrées.',
    unsubscribeTopicQuestion: 'Se désabonner de {topic}\u00a0?',
    unsubscribeTopicExplain: 'Ne plus envoyer d’e-mails sur {topic} à {email}\u00a0? Les autres e-mails continuent.',
    unsubscribedTopicTitle: 'Vous ne recevrez plus {topic}',
    unsubscribedTopicText: '{email} ne recevra plus d’e-mails sur {topic}. Les autres e-mails continuent.',
    resubscribeTopicQuestion: 'Recevoir à nouveau {topic}\u00a0?',
    resubscribeTopicExplain: 'Envoyer à nouveau des e-mails sur {topic} à {email}\u00a0?',
    resubscribedTopicTitle: 'Vous recevez à nouveau {topic}',
    resubscribedTopicText: '{email} recevra à nouveau des e-mails sur {topic}.',
    topicsHeading: 'Ce que vous recevez',
    topicsExplain: 'Choisissez les sujets qui vous intéressent.',
    noSnooze: 'Pas de pause',
    unsubscribeAll: 'Se désabonner de tout',
    unsubscribeAllExplain: 'Plus aucun e-mail marketing, quels que soient les sujets.',
    savePreferences: 'Enregistrer les préférences',
    notFoundTitle: 'Lien non valide',
    notFoundText: 'Ce lien n’est pas valide, ou l’abonnement auquel il se rapporte n’existe plus.',
    badRequestTitle: 'Demande non comprise',
    badRequestText: 'Cette action n’est pas disponible. Veuillez revenir en arrière et réessayer.',
    errorTitle: 'Une erreur s’est produite',
    errorText: 'Veuillez réessayer plus tard.',
  },
  es: {
    unsubscribe: 'Darse de baja',
    managePreferences: 'Gestionar preferencias',
    preferencesTitle: 'Preferencias de correo',
    unsubscribeQuestion: '¿Darse de baja?',
    unsubscribeExplain: '¿Dejar de recibir estos correos en {email}?',
    unsubscribedTitle: 'Se ha dado de baja',
    unsubscribedText: '{email} ya no recibirá estos correos.',
    unsubscribedByMistake: '¿Se dio de baja por error?',
    resubscribe: 'Volver a suscribirse',
    resubscribeQuestion: '¿Volver a suscribirse?',
    resubscribeExplain: '¿Volver a recibir estos correos en {email}?',
    subscribedTitle: 'Su suscripción está activa',
    subscribedText: '{email} recibirá estos correos.',
    emailAddress: 'Dirección de correo electrónico',
    status: 'Estado',
    statusSubscribed: 'Suscripción activa',
    statusUnsubscribed: 'Suscripción cancelada',
    statusSnoozed: 'En pausa hasta el {date}',
    snoozeHeading: 'Tomarse un descanso',
    snoozeExplain: 'Pause estos correos durante un tiempo; después volverá a recibirlos automáticamente.',
    snoozeDays: '{n} días',
    saved: 'Se han guardado sus preferencias.',
    unsubscribeTopicQuestion: '¿Darse de baja de {topic}?',
    unsubscribeTopicExplain: '¿Dejar de enviar correos sobre {topic} a {email}? Los demás correos seguirán llegando.',
    unsubscribedTopicTitle: 'Ya no recibirá {topic}',
    unsubscribedTopicText: '{email} ya no recibirá correos sobre {topic}. Los demás correos seguirán llegando.',
    resubscribeTopicQuestion: '¿Volver a recibir {topic}?',
    resubscribeTopicExplain: '¿Volver a enviar correos sobre {topic} a {email}?',
    resubscribedTopicTitle: 'Vuelve a recibir {topic}',
    resubscribedTopicText: '{email} volverá a recibir correos sobre {topic}.',
    topicsHeading: 'Lo que recibe',
    topicsExplain: 'Elija los temas que le interesan.',
    noSnooze: 'Sin pausa',
    unsubscribeAll: 'Darse de baja de todo',
    unsubscribeAllExplain: 'Ningún correo de marketing, sean cuales sean los temas.',
    savePreferences: 'Guardar preferencias',
    notFoundTitle: 'Enlace no válido',
    notFoundText: 'Este enlace no es válido o la suscripción a la que corresponde ya no existe.',
    badRequestTitle: 'Solicitud no válida',
    badRequestText: 'Esta acción no está disponible. Vuelva atrás e inténtelo de nuevo.',
    errorTitle: 'Algo ha salido mal',
    errorText: 'Inténtelo de nuevo más tarde.',
  },
  pt: {
    unsubscribe: 'Cancelar inscrição',
    managePreferences: 'Gerenciar preferências',
    preferencesTitle: 'Preferências de e-mail',
    unsubscribeQuestion: 'Cancelar inscrição?',
    unsubscribeExplain: 'Deixar de receber estes e-mails em {email}?',
    unsubscribedTitle: 'Sua inscrição foi cancelada',
    unsubscribedText: '{email} não receberá mais estes e-mails.',
    unsubscribedByMistake: 'Cancelou por engano?',
    resubscribe: 'Inscrever-se novamente',
    resubscribeQuestion: 'Inscrever-se novamente?',
    resubscribeExplain: 'Voltar a receber estes e-mails em {email}?',
    subscribedTitle: 'Sua inscrição está ativa',
    subscribedText: '{email} receberá estes e-mails.',
    emailAddress: 'Endereço de e-mail',
    status: 'Situação',
    statusSubscribed: 'Inscrição ativa',
    statusUnsubscribed: 'Inscrição cancelada',
    statusSnoozed: 'Em pausa até {date}',
    snoozeHeading: 'Fazer uma pausa',
    snoozeExplain: 'Pause estes e-mails por um tempo; depois você volta a recebê-los automaticamente.',
    snoozeDays: '{n} dias',
    saved: 'Suas preferências foram salvas.',
    unsubscribeTopicQuestion: 'Cancelar inscrição em {topic}?',
    unsubscribeTopicExplain: 'Parar de enviar e-mails sobre {topic} para {email}? Os outros e-mails continuam.',
    unsubscribedTopicTitle: 'Você saiu de {topic}',
    unsubscribedTopicText: '{email} não receberá mais e-mails sobre {topic}. Os outros e-mails continuam.',
    resubscribeTopicQuestion: 'Receber {topic} novamente?',
    resubscribeTopicExplain: 'Voltar a enviar e-mails sobre {topic} para {email}?',
    resubscribedTopicTitle: 'Você voltou a receber {topic}',
    resubscribedTopicText: '{email} voltará a receber e-mails sobre {topic}.',
    topicsHeading: 'O que você recebe',
    topicsExplain: 'Escolha os assuntos que deseja receber.',
    noSnooze: 'Sem pausa',
    unsubscribeAll: 'Cancelar inscrição em tudo',
    unsubscribeAllExplain: 'Nenhum e-mail de marketing, independentemente dos assuntos.',
    savePreferences: 'Salvar preferências',
    notFoundTitle: 'Link inválido',
    notFoundText: 'Este link não é válido, ou a inscrição a que se refere não existe mais.',
    badRequestTitle: 'Solicitação não compreendida',
    badRequestText: 'Esta ação não está disponível. Volte e tente novamente.',
    errorTitle: 'Algo deu errado',
    errorText: 'Tente novamente mais tarde.',
  },
};

export function stringsFor(locale: Locale): SubscriberStrings {
  return STRINGS[locale];
}

/** Fills `{name}` placeholders; the caller escapes the result for HTML. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (match, key: string) => (key in values ? String(values[key]) : match));
}

/** The supported language of a tag such as `de`, `de-AT`, `pt_BR` or `FR`; null when unsupported. */
export function baseLocale(tag: string): Locale | null {
  const base = tag.trim().toLowerCase().split(/[-_]/)[0];
  return (LOCALES as readonly string[]).includes(base ?? '') ? (base as Locale) : null;
}

/** The locale of a contact from its `data.locale`; English when missing or unsupported. */
export function localeOf(data: Record<string, unknown>): Locale {
  return typeof data.locale === 'string' ? (baseLocale(data.locale) ?? 'en') : 'en';
}

/**
 * The best supported locale of an `Accept-Language` header (for pages that know no contact, such
 * as the one for an invalid link); English when none is supported.
 */
export function localeFromAcceptLanguage(header: string | undefined): Locale {
  if (!header) return 'en';
  let best: { locale: Locale; q: number } | null = null;
  for (const part of header.split(',').slice(0, 20)) {
    const [tag = '', ...params] = part.split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    const locale = baseLocale(tag);
    if (locale && Number.isFinite(q) && q > 0 && (!best || q > best.q)) best = { locale, q };
  }
  return best?.locale ?? 'en';
}

/** A date as the locale writes it, e.g. "14 March 2025" / "14. März 2025", in UTC. */
export function formatDate(locale: Locale, date: Date): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(date);
}

const LINK_STYLE = 'color:#6b7280;text-decoration:underline';

/** The footer of marketing email: links to unsubscribe and to the preferences page. */
export function footerHtml(locale: Locale, urls: { unsubscribeUrl: string; manageUrl: string }): string {
  const s = STRINGS[locale];
  return (
    '<div style="margin:32px 0 0;padding:16px 0;border-top:1px solid #e5e7eb;' +
    'font-family:Arial,Helvetica,sans-serif;font-size:12px;line-height:18px;color:#6b7280;text-align:center">' +
    `<a href="${escapeHtml(urls.unsubscribeUrl)}" style="${LINK_STYLE}">${escapeHtml(s.unsubscribe)}</a>` +
    ' &middot; ' +
    `<a href="${escapeHtml(urls.manageUrl)}" style="${LINK_STYLE}">${escapeHtml(s.managePreferences)}</a>` +
    '</div>'
  );
}
