import type { Language } from '../brands/brand';
import type { MailTemplate, TemplateText } from './mail-templates';

/** What every program email says besides its template: the offer phrases and the footer, per language. */
export interface MailPhrases {
  /** "15% off", "10.00 USD off": `{value}` is the percentage or the amount. */
  percentOff: string;
  amountOff: string;
  /** The offer when it is free shipping. */
  freeShipping: string;
  /** Appended to an offer with a minimum purchase: `{amount}`. */
  minimumPurchase: string;
  /** The advocate's reward: a fixed amount, or a percentage of the friend's order. */
  rewardFixed: string;
  rewardPercent: string;
  /** The button under a share link: the advocate's (share it), the friend's (use the offer). */
  shareButton: string;
  offerButton: string;
  /** reward_reversed's {{owed_note}} when a refund left the advocate owing: `{amount}`. */
  owedNote: string;
  /** reward_issued's {{reward_use}}: how to spend a code (`{code}`), a store credit (`{amount}`, `{store}`), and why a store credit came as a code (`{store}`). */
  rewardCodeUse: string;
  rewardCreditUse: string;
  rewardNoAccount: string;
  /** reward_issued's {{expiry_note}} when the brand's codes expire: `{date}`. */
  expiryNote: string;
  /** Why the recipient gets this, and the way out. */
  footer: string;
  unsubscribe: string;
  /** The unsubscribe page: the question (`{email}`, `{brand}`), its button, the answer, a link that is not valid. */
  unsubscribeQuestion: string;
  unsubscribeButton: string;
  unsubscribeDone: string;
  unsubscribeInvalid: string;
}

type Catalogue = { phrases: MailPhrases; templates: Record<MailTemplate, TemplateText> };

const en: Catalogue = {
  phrases: {
    percentOff: '{value}% off',
    amountOff: '{value} off',
    freeShipping: 'free shipping',
    minimumPurchase: ' orders of {amount} or more',
    rewardFixed: '{value}',
    rewardPercent: '{value}% of their order',
    shareButton: 'Share your link',
    offerButton: 'Shop with your offer',
    owedNote: 'You now owe {amount}: it will be taken from your next rewards.',
    rewardCodeUse: 'Enter the code {code} at checkout. It works once, for one order.',
    rewardCreditUse: '{amount} was added to your store credit at {store}; it is used at checkout when you are signed in.',
    rewardNoAccount: 'You have no customer account at {store} yet, so your reward comes as a code.',
    expiryNote: 'It expires on {date}; if it is not used by then, its value comes back to you as a new code.',
    footer: 'You get this email from the {brand} referral program.',
    unsubscribe: 'Unsubscribe',
    unsubscribeQuestion: 'Stop the {brand} referral program emails to {email}?',
    unsubscribeButton: 'Unsubscribe',
    unsubscribeDone: '{email} will get no more {brand} referral program emails.',
    unsubscribeInvalid: 'This unsubscribe link is not valid. Use the link in the most recent email.',
  },
  templates: {
    advocate_welcome: {
      subject: 'Your {{brand_name}} referral link is ready',
      body:
        'Hi {{first_name}},\n\nThanks for joining the {{brand_name}} referral program. Share your link with friends: they get {{friend_offer}}, ' +
        'and you earn {{advocate_reward}} when they place an order.\n\n{{share_link}}\n\nYour referral code: {{referral_code}}',
    },
    advocate_link_again: {
      subject: 'Your {{brand_name}} referral link',
      body:
        'Hi {{first_name}},\n\nSomeone asked to join the {{brand_name}} referral program with this address, which is already in it. Here is your link again: ' +
        'friends get {{friend_offer}}, and you earn {{advocate_reward}} when they place an order.\n\n{{share_link}}\n\nYour referral code: {{referral_code}}\n\n' +
        'If this was not you, there is nothing to do.',
    },
    reward_earned: {
      subject: 'You earned {{amount}} from a referral',
      body:
        'Hi {{first_name}},\n\nA friend you referred to {{brand_name}} just placed an order, and you earned {{amount}}.\n\n' +
        'The reward is held until {{held_until}} in case the order is returned. We will write again when it is yours.',
    },
    reward_approved: {
      subject: 'Your {{amount}} referral reward is ready',
      body: 'Hi {{first_name}},\n\nYour referral reward of {{amount}} from {{brand_name}} is approved and yours now.\n\n{{share_link}}',
    },
    reward_issued: {
      subject: 'Your {{amount}} reward for {{brand_name}}',
      body:
        'Hi {{first_name}},\n\nThank you for your referrals! Here is your reward: {{amount}} off your next order at {{brand_name}}.\n\n' +
        '{{reward_use}}\n\n{{expiry_note}}\n\n{{store_url}}',
    },
    reward_paid: {
      subject: '{{brand_name}} paid you {{amount}}',
      body: 'Hi {{first_name}},\n\n{{brand_name}} has paid you {{amount}} for your referrals. Thank you for spreading the word!',
    },
    reward_reversed: {
      subject: 'A refund took back {{amount}} of your referral reward',
      body:
        'Hi {{first_name}},\n\nThe {{order_value}} order a friend you referred placed with {{brand_name}} on {{order_date}} was refunded, ' +
        'so {{amount}} of your reward for it was taken back.\n\n{{owed_note}}',
    },
    friend_offer: {
      subject: '{{advocate_first_name}} sent you {{friend_offer}} at {{brand_name}}',
      body:
        'Hello,\n\n{{advocate_first_name}} thinks you will love {{brand_name}} and sent you {{friend_offer}}.\n\n' +
        'Use the code {{referral_code}} at checkout.\n\n{{share_link}}',
    },
    reengagement: {
      subject: 'Your friends still get {{friend_offer}} at {{brand_name}}',
      body:
        'Hi {{first_name}},\n\nIt has been a while since a friend used your {{brand_name}} referral link. They still get {{friend_offer}}, ' +
        'and you still earn {{advocate_reward}} for each order.\n\n{{share_link}}\n\nYour referral code: {{referral_code}}',
    },
  },
};

const fr: Catalogue = {
  phrases: {
    percentOff: '{value} % de réduction',
    amountOff: '{value} de réduction',
    freeShipping: 'la livraison gratuite',
    minimumPurchase: ' dès {amount} d’achat',
    rewardFixed: '{value}',
    rewardPercent: '{value} % de leur commande',
    shareButton: 'Partager votre lien',
    offerButton: 'Profiter de l’offre',
    owedNote: 'Vous devez maintenant {amount} : ce montant sera déduit de vos prochaines récompenses.',
    rewardCodeUse: 'Saisissez le code {code} lors du paiement. Il est valable une fois, pour une commande.',
    rewardCreditUse: '{amount} ont été ajoutés à votre crédit boutique chez {store} ; il s’applique lors du paiement quand vous êtes connecté à votre compte.',
    rewardNoAccount: 'Vous n’avez pas encore de compte client chez {store} : votre récompense vous arrive donc sous forme de code.',
    expiryNote: 'Il expire le {date} ; s’il n’est pas utilisé d’ici là, sa valeur vous est renvoyée sous la forme d’un nouveau code.',
    footer: 'Vous recevez cet e-mail du programme de parrainage {brand}.',
    unsubscribe: 'Se désabonner',
    unsubscribeQuestion: 'Ne plus envoyer les e-mails du programme de parrainage {brand} à {email} ?',
    unsubscribeButton: 'Se désabonner',
    unsubscribeDone: '{email} ne recevra plus d’e-mails du programme de parrainage {brand}.',
    unsubscribeInvalid: 'Ce lien de désabonnement n’est pas valide. Utilisez celui du dernier e-mail reçu.',
  },
  templates: {
    advocate_welcome: {
      subject: 'Votre lien de parrainage {{brand_name}} est prêt',
      body:
        'Bonjour {{first_name}},\n\nMerci de rejoindre le programme de parrainage {{brand_name}}. Partagez votre lien : vos amis obtiennent ' +
        '{{friend_offer}}, et vous gagnez {{advocate_reward}} pour chaque commande.\n\n{{share_link}}\n\nVotre code de parrainage : {{referral_code}}',
    },
    advocate_link_again: {
      subject: 'Votre lien de parrainage {{brand_name}}',
      body:
        'Bonjour {{first_name}},\n\nQuelqu’un a demandé à rejoindre le programme de parrainage {{brand_name}} avec cette adresse, qui en fait déjà partie. ' +
        'Voici de nouveau votre lien : vos amis obtiennent {{friend_offer}}, et vous gagnez {{advocate_reward}} pour chaque commande.\n\n{{share_link}}\n\n' +
        'Votre code de parrainage : {{referral_code}}\n\nSi ce n’était pas vous, vous n’avez rien à faire.',
    },
    reward_earned: {
      subject: 'Vous avez gagné {{amount}} grâce à un parrainage',
      body:
        'Bonjour {{first_name}},\n\nUn ami que vous avez parrainé chez {{brand_name}} vient de commander : vous gagnez {{amount}}.\n\n' +
        'La récompense est retenue jusqu’au {{held_until}}, au cas où la commande serait retournée. Nous vous écrirons dès qu’elle sera à vous.',
    },
    reward_approved: {
      subject: 'Votre récompense de {{amount}} est disponible',
      body: 'Bonjour {{first_name}},\n\nVotre récompense de parrainage de {{amount}} chez {{brand_name}} est validée et à vous.\n\n{{share_link}}',
    },
    reward_issued: {
      subject: 'Votre récompense de {{amount}} chez {{brand_name}}',
      body:
        'Bonjour {{first_name}},\n\nMerci pour vos parrainages ! Voici votre récompense : {{amount}} de réduction sur votre prochaine commande chez {{brand_name}}.\n\n' +
        '{{reward_use}}\n\n{{expiry_note}}\n\n{{store_url}}',
    },
    reward_paid: {
      subject: '{{brand_name}} vous a versé {{amount}}',
      body: 'Bonjour {{first_name}},\n\n{{brand_name}} vous a versé {{amount}} pour vos parrainages. Merci de faire connaître la marque !',
    },
    reward_reversed: {
      subject: 'Un remboursement a repris {{amount}} de votre récompense de parrainage',
      body:
        'Bonjour {{first_name}},\n\nLa commande de {{order_value}} passée chez {{brand_name}} le {{order_date}} par un ami que vous avez parrainé ' +
        'a été remboursée : {{amount}} de votre récompense ont donc été repris.\n\n{{owed_note}}',
    },
    friend_offer: {
      subject: '{{advocate_first_name}} vous offre {{friend_offer}} chez {{brand_name}}',
      body:
        'Bonjour,\n\n{{advocate_first_name}} pense que vous allez adorer {{brand_name}} et vous offre {{friend_offer}}.\n\n' +
        'Utilisez le code {{referral_code}} lors du paiement.\n\n{{share_link}}',
    },
    reengagement: {
      subject: 'Vos amis ont toujours {{friend_offer}} chez {{brand_name}}',
      body:
        'Bonjour {{first_name}},\n\nPersonne n’a utilisé votre lien de parrainage {{brand_name}} depuis un moment. Vos amis obtiennent toujours ' +
        '{{friend_offer}}, et vous gagnez toujours {{advocate_reward}} par commande.\n\n{{share_link}}\n\nVotre code de parrainage : {{referral_code}}',
    },
  },
};

const de: Catalogue = {
  phrases: {
    percentOff: '{value} % Rabatt',
    amountOff: '{value} Rabatt',
    freeShipping: 'kostenlosen Versand',
    minimumPurchase: ' ab einem Einkauf von {amount}',
    rewardFixed: '{value}',
    rewardPercent: '{value} % ihrer Bestellung',
    shareButton: 'Link teilen',
    offerButton: 'Angebot nutzen',
    owedNote: 'Sie schulden jetzt {amount}: Der Betrag wird mit Ihren nächsten Prämien verrechnet.',
    rewardCodeUse: 'Geben Sie an der Kasse den Code {code} ein. Er gilt einmal, für eine Bestellung.',
    rewardCreditUse: '{amount} wurden Ihrem Shop-Guthaben bei {store} gutgeschrieben; es wird an der Kasse verrechnet, wenn Sie angemeldet sind.',
    rewardNoAccount: 'Sie haben noch kein Kundenkonto bei {store}, daher erhalten Sie Ihre Prämie als Code.',
    expiryNote: 'Er läuft am {date} ab; wird er bis dahin nicht eingelöst, erhalten Sie seinen Wert als neuen Code.',
    footer: 'Sie erhalten diese E-Mail vom Empfehlungsprogramm von {brand}.',
    unsubscribe: 'Abmelden',
    unsubscribeQuestion: 'Keine E-Mails des Empfehlungsprogramms von {brand} mehr an {email} senden?',
    unsubscribeButton: 'Abmelden',
    unsubscribeDone: '{email} erhält keine E-Mails des Empfehlungsprogramms von {brand} mehr.',
    unsubscribeInvalid: 'Dieser Abmeldelink ist ungültig. Verwenden Sie den Link aus der letzten E-Mail.',
  },
  templates: {
    advocate_welcome: {
      subject: 'Ihr Empfehlungslink für {{brand_name}} ist bereit',
      body:
        'Hallo {{first_name}},\n\ndanke, dass Sie beim Empfehlungsprogramm von {{brand_name}} mitmachen. Teilen Sie Ihren Link: Ihre Freunde erhalten ' +
        '{{friend_offer}}, und Sie verdienen {{advocate_reward}} für jede Bestellung.\n\n{{share_link}}\n\nIhr Empfehlungscode: {{referral_code}}',
    },
    advocate_link_again: {
      subject: 'Ihr Empfehlungslink für {{brand_name}}',
      body:
        'Hallo {{first_name}},\n\njemand wollte sich mit dieser Adresse beim Empfehlungsprogramm von {{brand_name}} anmelden, die dort schon dabei ist. ' +
        'Hier ist noch einmal Ihr Link: Ihre Freunde erhalten {{friend_offer}}, und Sie verdienen {{advocate_reward}} für jede Bestellung.\n\n{{share_link}}\n\n' +
        'Ihr Empfehlungscode: {{referral_code}}\n\nWaren Sie das nicht, müssen Sie nichts tun.',
    },
    reward_earned: {
      subject: 'Sie haben {{amount}} durch eine Empfehlung verdient',
      body:
        'Hallo {{first_name}},\n\neine Person, die Sie {{brand_name}} empfohlen haben, hat gerade bestellt: Sie verdienen {{amount}}.\n\n' +
        'Die Prämie wird bis {{held_until}} zurückgehalten, falls die Bestellung zurückgeht. Wir melden uns, sobald sie Ihnen gehört.',
    },
    reward_approved: {
      subject: 'Ihre Prämie von {{amount}} ist freigegeben',
      body: 'Hallo {{first_name}},\n\nIhre Empfehlungsprämie von {{amount}} bei {{brand_name}} ist freigegeben und gehört Ihnen.\n\n{{share_link}}',
    },
    reward_issued: {
      subject: 'Ihre Prämie über {{amount}} für {{brand_name}}',
      body:
        'Hallo {{first_name}},\n\ndanke für Ihre Empfehlungen! Hier ist Ihre Prämie: {{amount}} Rabatt auf Ihre nächste Bestellung bei {{brand_name}}.\n\n' +
        '{{reward_use}}\n\n{{expiry_note}}\n\n{{store_url}}',
    },
    reward_paid: {
      subject: '{{brand_name}} hat Ihnen {{amount}} ausgezahlt',
      body: 'Hallo {{first_name}},\n\n{{brand_name}} hat Ihnen {{amount}} für Ihre Empfehlungen ausgezahlt. Danke fürs Weitersagen!',
    },
    reward_reversed: {
      subject: 'Eine Erstattung hat {{amount}} Ihrer Empfehlungsprämie zurückgenommen',
      body:
        'Hallo {{first_name}},\n\ndie Bestellung über {{order_value}} vom {{order_date}}, die eine von Ihnen empfohlene Person bei {{brand_name}} ' +
        'aufgegeben hat, wurde erstattet. Daher wurden {{amount}} Ihrer Prämie dafür zurückgenommen.\n\n{{owed_note}}',
    },
    friend_offer: {
      subject: '{{advocate_first_name}} schenkt Ihnen {{friend_offer}} bei {{brand_name}}',
      body:
        'Hallo,\n\n{{advocate_first_name}} glaubt, dass Ihnen {{brand_name}} gefällt, und schenkt Ihnen {{friend_offer}}.\n\n' +
        'Geben Sie an der Kasse den Code {{referral_code}} ein.\n\n{{share_link}}',
    },
    reengagement: {
      subject: 'Ihre Freunde erhalten weiterhin {{friend_offer}} bei {{brand_name}}',
      body:
        'Hallo {{first_name}},\n\nseit einiger Zeit hat niemand Ihren Empfehlungslink für {{brand_name}} genutzt. Ihre Freunde erhalten weiterhin ' +
        '{{friend_offer}}, und Sie verdienen weiterhin {{advocate_reward}} pro Bestellung.\n\n{{share_link}}\n\nIhr Empfehlungscode: {{referral_code}}',
    },
  },
};

const es: Catalogue = {
  phrases: {
    percentOff: '{value} % de descuento',
    amountOff: '{value} de descuento',
    freeShipping: 'envío gratis',
    minimumPurchase: ' en compras desde {amount}',
    rewardFixed: '{value}',
    rewardPercent: 'el {value} % de su pedido',
    shareButton: 'Comparte tu enlace',
    offerButton: 'Usar la oferta',
    owedNote: 'Ahora debes {amount}: se descontará de tus próximas recompensas.',
    rewardCodeUse: 'Introduce el código {code} al pagar. Sirve una vez, para un pedido.',
    rewardCreditUse: 'Se han añadido {amount} a tu crédito en tienda de {store}; se aplica al pagar cuando has iniciado sesión.',
    rewardNoAccount: 'Aún no tienes una cuenta de cliente en {store}, así que tu recompensa llega como código.',
    expiryNote: 'Caduca el {date}; si no lo usas antes, recibirás su valor en un código nuevo.',
    footer: 'Recibes este correo del programa de referidos de {brand}.',
    unsubscribe: 'Darse de baja',
    unsubscribeQuestion: '¿Dejar de enviar los correos del programa de referidos de {brand} a {email}?',
    unsubscribeButton: 'Darse de baja',
    unsubscribeDone: '{email} no recibirá más correos del programa de referidos de {brand}.',
    unsubscribeInvalid: 'Este enlace para darse de baja no es válido. Usa el del correo más reciente.',
  },
  templates: {
    advocate_welcome: {
      subject: 'Tu enlace de referidos de {{brand_name}} está listo',
      body:
        'Hola {{first_name}}:\n\nGracias por unirte al programa de referidos de {{brand_name}}. Comparte tu enlace: tus amigos obtienen ' +
        '{{friend_offer}} y tú ganas {{advocate_reward}} por cada pedido.\n\n{{share_link}}\n\nTu código de referido: {{referral_code}}',
    },
    advocate_link_again: {
      subject: 'Tu enlace de referidos de {{brand_name}}',
      body:
        'Hola {{first_name}}:\n\nAlguien pidió unirse al programa de referidos de {{brand_name}} con esta dirección, que ya forma parte de él. ' +
        'Aquí tienes de nuevo tu enlace: tus amigos obtienen {{friend_offer}} y tú ganas {{advocate_reward}} por cada pedido.\n\n{{share_link}}\n\n' +
        'Tu código de referido: {{referral_code}}\n\nSi no fuiste tú, no tienes que hacer nada.',
    },
    reward_earned: {
      subject: 'Has ganado {{amount}} con una recomendación',
      body:
        'Hola {{first_name}}:\n\nUna persona que recomendaste a {{brand_name}} acaba de hacer un pedido y has ganado {{amount}}.\n\n' +
        'La recompensa queda retenida hasta el {{held_until}} por si se devuelve el pedido. Te escribiremos cuando sea tuya.',
    },
    reward_approved: {
      subject: 'Tu recompensa de {{amount}} está disponible',
      body: 'Hola {{first_name}}:\n\nTu recompensa de {{amount}} de {{brand_name}} está aprobada y ya es tuya.\n\n{{share_link}}',
    },
    reward_issued: {
      subject: 'Tu recompensa de {{amount}} para {{brand_name}}',
      body:
        'Hola {{first_name}}:\n\n¡Gracias por tus recomendaciones! Aquí tienes tu recompensa: {{amount}} de descuento en tu próximo pedido en {{brand_name}}.\n\n' +
        '{{reward_use}}\n\n{{expiry_note}}\n\n{{store_url}}',
    },
    reward_paid: {
      subject: '{{brand_name}} te ha pagado {{amount}}',
      body: 'Hola {{first_name}}:\n\n{{brand_name}} te ha pagado {{amount}} por tus recomendaciones. ¡Gracias por correr la voz!',
    },
    reward_reversed: {
      subject: 'Un reembolso ha retirado {{amount}} de tu recompensa de referidos',
      body:
        'Hola {{first_name}}:\n\nEl pedido de {{order_value}} que una persona que recomendaste hizo en {{brand_name}} el {{order_date}} ' +
        'se ha reembolsado, así que se han retirado {{amount}} de tu recompensa por él.\n\n{{owed_note}}',
    },
    friend_offer: {
      subject: '{{advocate_first_name}} te regala {{friend_offer}} en {{brand_name}}',
      body:
        'Hola:\n\n{{advocate_first_name}} cree que te encantará {{brand_name}} y te regala {{friend_offer}}.\n\n' +
        'Usa el código {{referral_code}} al pagar.\n\n{{share_link}}',
    },
    reengagement: {
      subject: 'Tus amigos siguen teniendo {{friend_offer}} en {{brand_name}}',
      body:
        'Hola {{first_name}}:\n\nHace tiempo que nadie usa tu enlace de referidos de {{brand_name}}. Tus amigos siguen obteniendo ' +
        '{{friend_offer}} y tú sigues ganando {{advocate_reward}} por pedido.\n\n{{share_link}}\n\nTu código de referido: {{referral_code}}',
    },
  },
};

const CATALOGUES: Record<Language, Catalogue> = { en, fr, de, es };

export function defaultTemplate(language: Language, template: MailTemplate): TemplateText {
  return CATALOGUES[language].templates[template];
}

export function mailPhrases(language: Language): MailPhrases {
  return CATALOGUES[language].phrases;
}
