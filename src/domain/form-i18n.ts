import type { Locale } from './subscriber-i18n.js';

/**
 * The words visitors of a signup form read: the hosted page, the answers of the submission
 * endpoint (refusals included), the confirmation email and the confirmation page. In the languages
 * of the subscriber pages (domain/subscriber-i18n); `{name}` placeholders are filled by `fill`.
 */
export interface FormStrings {
  defaultTitle: string;
  emailLabel: string;
  submit: string;
  sending: string;
  optional: string;
  scriptNeeded: string;
  /** `{email}`: the address the confirmation went to. */
  checkInbox: string;
  subscribed: string;
  required: string;
  invalidEmail: string;
  invalidValue: string;
  notFound: string;
  refusedBot: string;
  refusedTooFast: string;
  refusedChallenge: string;
  refusedRateLimit: string;
  refusedOrigin: string;
  refusedDisposable: string;
  /** `{suggestion}`: the address the visitor probably meant. */
  refusedTypo: string;
  refusedNoMail: string;
  /** The address was erased from the list, and the list keeps it out. */
  refusedErased: string;
  confirmTitle: string;
  confirmButton: string;
  confirming: string;
  confirmedTitle: string;
  /** `{email}` */
  confirmedText: string;
  expiredTitle: string;
  /** `{days}` */
  expiredText: string;
  resend: string;
  /** `{email}` */
  resentText: string;
  emailSubject: string;
  /** `{email}` */
  emailIntro: string;
  emailButton: string;
  /** `{days}` */
  emailValidity: string;
  emailIgnore: string;
}

const STRINGS: Record<Locale, FormStrings> = {
  en: {
    defaultTitle: 'Subscribe to our emails',
    emailLabel: 'Email address',
    submit: 'Subscribe',
    sending: 'Sending…',
    optional: 'optional',
    scriptNeeded:
      'This form needs JavaScript, which protects it from spam. Please turn JavaScript on and reload the page.',
    checkInbox: 'Almost done: we sent an email to {email}. Click the link in it to confirm your subscription.',
    subscribed: 'Thank you, you are subscribed.',
    required: 'Please fill in this field.',
    invalidEmail: 'Please enter a valid email address.',
    invalidValue: 'Please check this value.',
    notFound: 'This form does not exist or is no longer available.',
    refusedBot: 'This submission looks automated and was not accepted.',
    refusedTooFast: 'That was quicker than a person fills in a form. Please wait a moment and send it again.',
    refusedChallenge: 'The spam check did not complete. Please reload the page and try again.',
    refusedRateLimit: 'Too many signups from here just now. Please try again in a few minutes.',
    refusedOrigin: 'This form cannot be used from this website.',
    refusedDisposable: 'Addresses of disposable email services cannot sign up. Please use your usual address.',
    refusedTypo: 'Did you mean {suggestion}? Please check the address.',
    refusedNoMail: 'This address cannot receive email. Please check it.',
    refusedErased:
      'This address was removed from this list at its owner’s request and cannot sign up here again. To subscribe again, please write to the sender.',
    confirmTitle: 'Confirm your subscription',
    confirmButton: 'Confirm my subscription',
    confirming: 'Confirming…',
    confirmedTitle: 'Subscription confirmed',
    confirmedText: 'Thank you: {email} is now subscribed.',
    expiredTitle: 'This link has expired',
    expiredText: 'Confirmation links are valid for {days} days. We can send you a new one.',
    resend: 'Send me a new link',
    resentText: 'If a new link could be sent, it is on its way to {email}.',
    emailSubject: 'Please confirm your subscription',
    emailIntro: 'Please confirm that {email} wants to receive our emails.',
    emailButton: 'Confirm my subscription',
    emailValidity: 'The link is valid for {days} days.',
    emailIgnore: 'If you did not sign up, ignore this email: you will not hear from us.',
  },
  de: {
    defaultTitle: 'Unsere E-Mails abonnieren',
    emailLabel: 'E-Mail-Adresse',
    submit: 'Abonnieren',
    sending: 'Wird gesendet…',
    optional: 'optional',
    scriptNeeded:
      'Dieses Formular benötigt JavaScript, das es vor Spam schützt. Bitte aktivieren Sie JavaScript und laden Sie die Seite neu.',
    checkInbox:
      'Fast geschafft: Wir haben eine E-Mail an {email} gesendet. Klicken Sie auf den Link darin, um Ihr Abonnement zu bestätigen.',
    subscribed: 'Vielen Dank, Sie sind angemeldet.',
    required: 'Bitte füllen Sie dieses Feld aus.',
    invalidEmail: 'Bitte geben Sie eine gültige E-Mail-Adresse ein.',
    invalidValue: 'Bitte prüfen Sie diesen Wert.',
    notFound: 'Dieses Formular existiert nicht oder ist nicht mehr verfügbar.',
    refusedBot: 'Diese Eingabe wirkt automatisiert und wurde nicht angenommen.',
    refusedTooFast:
      'Das ging schneller, als ein Mensch ein Formular ausfüllt. Bitte warten Sie einen Moment und senden Sie es erneut.',
    refusedChallenge:
      'Die Spam-Prüfung wurde nicht abgeschlossen. Bitte laden Sie die Seite neu und versuchen Sie es erneut.',
    refusedRateLimit: 'Gerade gab es zu viele Anmeldungen von hier. Bitte versuchen Sie es in einigen Minuten erneut.',
    refusedOrigin: 'Dieses Formular kann auf dieser Website nicht verwendet werden.',
    refusedDisposable:
      'Adressen von Wegwerf-E-Mail-Diensten können sich nicht anmelden. Bitte verwenden Sie Ihre übliche Adresse.',
    refusedTypo: 'Meinten Sie {suggestion}? Bitte prüfen Sie die Adresse.',
    refusedNoMail: 'An diese Adresse kann keine E-Mail zugestellt werden. Bitte prüfen Sie sie.',
    refusedErased:
      'Diese Adresse wurde auf Wunsch ihres Inhabers aus dieser Liste gelöscht und kann sich hier nicht erneut anmelden. Um sich wieder anzumelden, schreiben Sie bitte dem Absender.',
    confirmTitle: 'Abonnement bestätigen',
    confirmButton: 'Mein Abonnement bestätigen',
    confirming: 'Wird bestätigt…',
    confirmedTitle: 'Abonnement bestätigt',
    confirmedText: 'Vielen Dank: {email} ist jetzt angemeldet.',
    expiredTitle: 'Dieser Link ist abgelaufen',
    expiredText: 'Bestätigungslinks sind {days} Tage gültig. Wir können Ihnen einen neuen senden.',
    resend: 'Neuen Link senden',
    resentText: 'Falls ein neuer Link gesendet werden konnte, ist er unterwegs an {email}.',
    emailSubject: 'Bitte bestätigen Sie Ihr Abonnement',
    emailIntro: 'Bitte bestätigen Sie, dass {email} unsere E-Mails erhalten möchte.',
    emailButton: 'Mein Abonnement bestätigen',
    emailValidity: 'Der Link ist {days} Tage gültig.',
    emailIgnore: 'Wenn Sie sich nicht angemeldet haben, ignorieren Sie diese E-Mail: Sie hören nichts mehr von uns.',
  },
  fr: {
    defaultTitle: 'Abonnez-vous à nos e-mails',
    emailLabel: 'Adresse e-mail',
    submit: 'S’abonner',
    sending: 'Envoi…',
    optional: 'facultatif',
    scriptNeeded:
      'Ce formulaire a besoin de JavaScript, qui le protège du spam. Veuillez activer JavaScript et recharger la page.',
    checkInbox:
      'Presque terminé\u00a0: nous avons envoyé un e-mail à {email}. Cliquez sur le lien qu’il contient pour confirmer votre abonnement.',
    subscribed: 'Merci, votre abonnement est actif.',
    required: 'Veuillez remplir ce champ.',
    invalidEmail: 'Veuillez saisir une adresse e-mail valide.',
    invalidValue: 'Veuillez vérifier cette valeur.',
    notFound: 'Ce formulaire n’existe pas ou n’est plus disponible.',
    refusedBot: 'Cet envoi semble automatisé et n’a pas été accepté.',
    refusedTooFast:
      'C’était plus rapide qu’une personne ne remplit un formulaire. Veuillez patienter un instant et l’envoyer à nouveau.',
    refusedChallenge: 'La vérification anti-spam n’a pas abouti. Veuillez recharger la page et réessayer.',
    refusedRateLimit:
      'Trop d’inscriptions depuis cet endroit pour le moment. Veuillez réessayer dans quelques minutes.',
    refusedOrigin: 'Ce formulaire ne peut pas être utilisé depuis ce site.',
    refusedDisposable:
      'Les adresses de services d’e-mail jetables ne peuvent pas s’inscrire. Veuillez utiliser votre adresse habituelle.',
    refusedTypo: 'Vouliez-vous dire {suggestion}\u00a0? Veuillez vérifier l’adresse.',
    refusedNoMail: 'Cette adresse ne peut pas recevoir d’e-mails. Veuillez la vérifier.',
    refusedErased:
      'Cette adresse a été supprimée de cette liste à la demande de son titulaire et ne peut plus s’inscrire ici. Pour vous réabonner, veuillez écrire à l’expéditeur.',
    confirmTitle: 'Confirmez votre abonnement',
    confirmButton: 'Confirmer mon abonnement',
    confirming: 'Confirmation…',
    confirmedTitle: 'Abonnement confirmé',
    confirmedText: 'Merci\u00a0: l’adresse {email} est maintenant abonnée.',
    expiredTitle: 'Ce lien a expiré',
    expiredText: 'Les liens de confirmation sont valables {days}\u00a0jours. Nous pouvons vous en envoyer un nouveau.',
    resend: 'M’envoyer un nouveau lien',
    resentText: 'Si un nouveau lien a pu être envoyé, il est en route vers {email}.',
    emailSubject: 'Veuillez confirmer votre abonnement',
    emailIntro: 'Veuillez confirmer que {email} souhaite recevoir nos e-mails.',
    emailButton: 'Confirmer mon abonnement',
    emailValidity: 'Le lien est valable {days}\u00a0jours.',
    emailIgnore: 'Si vous ne vous êtes pas inscrit, ignorez cet e-mail\u00a0: vous n’aurez plus de nouvelles de nous.',
  },
  es: {
    defaultTitle: 'Suscríbase a nuestros correos',
    emailLabel: 'Dirección de correo electrónico',
    submit: 'Suscribirse',
    sending: 'Enviando…',
    optional: 'opcional',
    scriptNeeded:
      'Este formulario necesita JavaScript, que lo protege del spam. Active JavaScript y vuelva a cargar la página.',
    checkInbox:
      'Casi listo: hemos enviado un correo a {email}. Haga clic en el enlace que contiene para confirmar su suscripción.',
    subscribed: 'Gracias, su suscripción está activa.',
    required: 'Rellene este campo.',
    invalidEmail: 'Introduzca una dirección de correo válida.',
    invalidValue: 'Compruebe este valor.',
    notFound: 'Este formulario no existe o ya no está disponible.',
    refusedBot: 'Este envío parece automatizado y no se ha aceptado.',
    refusedTooFast:
      'Ha sido más rápido de lo que una persona rellena un formulario. Espere un momento y vuelva a enviarlo.',
    refusedChallenge: 'La comprobación antispam no ha terminado. Vuelva a cargar la página e inténtelo de nuevo.',
    refusedRateLimit: 'Demasiadas suscripciones desde aquí en este momento. Inténtelo de nuevo en unos minutos.',
    refusedOrigin: 'Este formulario no se puede usar desde este sitio web.',
    refusedDisposable:
      'Las direcciones de servicios de correo desechable no pueden suscribirse. Use su dirección habitual.',
    refusedTypo: '¿Quiso decir {suggestion}? Compruebe la dirección.',
    refusedNoMail: 'Esta dirección no puede recibir correo. Compruébela.',
    refusedErased:
      'Esta dirección se eliminó de esta lista a petición de su titular y no puede volver a suscribirse aquí. Para suscribirse de nuevo, escriba al remitente.',
    confirmTitle: 'Confirme su suscripción',
    confirmButton: 'Confirmar mi suscripción',
    confirming: 'Confirmando…',
    confirmedTitle: 'Suscripción confirmada',
    confirmedText: 'Gracias: {email} ya está suscrito.',
    expiredTitle: 'Este enlace ha caducado',
    expiredText: 'Los enlaces de confirmación son válidos durante {days} días. Podemos enviarle uno nuevo.',
    resend: 'Enviarme un enlace nuevo',
    resentText: 'Si se ha podido enviar un enlace nuevo, va de camino a {email}.',
    emailSubject: 'Confirme su suscripción',
    emailIntro: 'Confirme que {email} desea recibir nuestros correos.',
    emailButton: 'Confirmar mi suscripción',
    emailValidity: 'El enlace es válido durante {days} días.',
    emailIgnore: 'Si no se ha suscrito, ignore este correo: no volverá a saber de nosotros.',
  },
  pt: {
    defaultTitle: 'Inscreva-se em nossos e-mails',
    emailLabel: 'Endereço de e-mail',
    submit: 'Inscrever-se',
    sending: 'Enviando…',
    optional: 'opcional',
    scriptNeeded:
      'Este formulário precisa de JavaScript, que o protege contra spam. Ative o JavaScript e recarregue a página.',
    checkInbox:
      'Quase pronto: enviamos um e-mail para {email}. Clique no link que ele contém para confirmar sua inscrição.',
    subscribed: 'Obrigado, sua inscrição está ativa.',
    required: 'Preencha este campo.',
    invalidEmail: 'Informe um endereço de e-mail válido.',
    invalidValue: 'Verifique este valor.',
    notFound: 'Este formulário não existe ou não está mais disponível.',
    refusedBot: 'Este envio parece automatizado e não foi aceito.',
    refusedTooFast:
      'Isso foi mais rápido do que uma pessoa preenche um formulário. Aguarde um momento e envie novamente.',
    refusedChallenge: 'A verificação contra spam não foi concluída. Recarregue a página e tente novamente.',
    refusedRateLimit: 'Muitas inscrições daqui neste momento. Tente novamente em alguns minutos.',
    refusedOrigin: 'Este formulário não pode ser usado neste site.',
    refusedDisposable: 'Endereços de serviços de e-mail descartável não podem se inscrever. Use seu endereço habitual.',
    refusedTypo: 'Você quis dizer {suggestion}? Verifique o endereço.',
    refusedNoMail: 'Este endereço não pode receber e-mails. Verifique-o.',
    refusedErased:
      'Este endereço foi removido desta lista a pedido do seu titular e não pode se inscrever aqui novamente. Para se inscrever de novo, escreva ao remetente.',
    confirmTitle: 'Confirme sua inscrição',
    confirmButton: 'Confirmar minha inscrição',
    confirming: 'Confirmando…',
    confirmedTitle: 'Inscrição confirmada',
    confirmedText: 'Obrigado: {email} agora está inscrito.',
    expiredTitle: 'Este link expirou',
    expiredText: 'Os links de confirmação são válidos por {days} dias. Podemos enviar um novo.',
    resend: 'Enviar um novo link',
    resentText: 'Se foi possível enviar um novo link, ele está a caminho de {email}.',
    emailSubject: 'Confirme sua inscrição',
    emailIntro: 'Confirme que {email} deseja receber nossos e-mails.',
    emailButton: 'Confirmar minha inscrição',
    emailValidity: 'O link é válido por {days} dias.',
    emailIgnore: 'Se você não se inscreveu, ignore este e-mail: não entraremos mais em contato.',
  },
};

export function formStringsFor(locale: Locale): FormStrings {
  return STRINGS[locale];
}
