import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'mail.when': 'Quand : {at, date, utc}',
  'mail.network': 'Réseau : {network}',
  'mail.lastNetwork': 'Réseau de la dernière tentative : {network}',
  'mail.device': 'Appareil : {device}',
  'mail.unknown': 'inconnu',

  'mail.code.subject': 'Votre code de vérification dauth',
  'mail.code.code': 'Votre code de vérification dauth est {code}.',
  'mail.code.pinRecover':
    'Utilisez-le dans {minutes, plural, one {la minute} other {les # minutes}} pour récupérer le code PIN de votre portefeuille (cela donne à votre portefeuille une nouvelle clé de propriétaire).',
  'mail.code.notYou': "Si vous ne l'avez pas demandé, ignorez cet e-mail et changez votre mot de passe.",

  'mail.address.subjectSignup': 'Confirmez votre adresse e-mail dauth',
  'mail.address.subjectResend': 'Votre code de vérification d’adresse e-mail dauth',
  'mail.address.intro':
    'Confirmez que cette adresse e-mail est bien la vôtre pour dauth : ouvrez ce lien et appuyez sur son bouton',
  'mail.address.code': 'ou saisissez le code {code} là où vous vous êtes inscrit.',
  'mail.address.validity':
    "Le lien et le code ne fonctionnent qu'une fois, pendant {hours, plural, one {# heure} other {# heures}}.",
  'mail.address.notYou': "Si vous n'avez pas créé de compte dauth, ignorez cet e-mail.",

  'mail.reset.subject': 'Réinitialisez votre mot de passe dauth',
  'mail.reset.code': 'Votre code de réinitialisation du mot de passe dauth est {code}.',
  'mail.reset.enter':
    'Saisissez-le dans {minutes, plural, one {la minute} other {les # minutes}} sur le formulaire de réinitialisation, ou ouvrez :',
  'mail.reset.notYou':
    "Si vous ne l'avez pas demandé, ignorez cet e-mail : votre mot de passe reste inchangé.",

  'mail.guessing.subject': "Quelqu'un tente de deviner le mot de passe de votre compte dauth",
  'mail.guessing.intro':
    'Votre compte dauth a subi de nombreuses tentatives de connexion échouées ces dernières minutes, peut-être depuis de nombreux endroits. Tant qu’elles continuent, une connexion exige ce code en plus du mot de passe :',
  'mail.guessing.code': 'Votre code de connexion est {code}.',
  'mail.guessing.validity':
    'Il est valable {minutes, plural, one {# minute} other {# minutes}}. Saisissez-le sur la page de connexion avec votre mot de passe.',
  'mail.guessing.notYou':
    "Si ce n'était pas vous, rien n'est perdu : le mot de passe seul n'ouvre plus le compte.",
  'mail.guessing.weak':
    'Si votre mot de passe est faible ou utilisé ailleurs, changez-le après vous être connecté.',

  'mail.security.passkeyAdded.subject': "Une clé d'accès a été ajoutée à votre compte dauth",
  'mail.security.passkeyAdded.body':
    "Une clé d'accès a été ajoutée à votre compte dauth (identifiant {credential}…).",
  'mail.security.passkeyRemoved.subject': "Une clé d'accès a été supprimée de votre compte dauth",
  'mail.security.passkeyRemoved.body':
    "Une clé d'accès a été supprimée de votre compte dauth (identifiant {credential}…).",
  'mail.security.identityLinked.subject': 'Une identité de connexion a été associée à votre compte dauth',
  'mail.security.identityLinked.body':
    'Votre compte {provider} a été associé à votre compte dauth : il peut désormais s’y connecter.',
  'mail.security.identityUnlinked.subject': 'Une identité de connexion a été dissociée de votre compte dauth',
  'mail.security.identityUnlinked.body': 'Une identité associée a été retirée de votre compte dauth.',
  'mail.security.guestUpgraded.subject': 'Votre compte invité dauth est devenu un compte complet',
  'mail.security.guestUpgraded.body':
    "Votre compte invité est devenu un compte complet : le secret de l'appareil ne permet plus de se connecter.",
  'mail.security.passwordChanged.subject': 'Votre mot de passe dauth a été modifié',
  'mail.security.passwordChanged.body':
    'Le mot de passe de votre compte dauth a été modifié. Toutes les autres sessions ont été déconnectées.',
  'mail.security.passwordReset.subject': 'Votre mot de passe dauth a été réinitialisé',
  'mail.security.passwordReset.body':
    'Le mot de passe de votre compte dauth a été réinitialisé par e-mail. Toutes les sessions ont été déconnectées.',
  'mail.security.totpEnabled.subject':
    "Une application d'authentification a été ajoutée à votre compte dauth",
  'mail.security.totpEnabled.body':
    "La connexion en deux étapes avec une application d'authentification (TOTP) a été activée pour votre compte dauth.",
  'mail.security.totpRemoved.subject': "L'application d'authentification a été retirée de votre compte dauth",
  'mail.security.totpRemoved.body':
    "La connexion en deux étapes avec une application d'authentification (TOTP) a été désactivée pour votre compte dauth.",
  'mail.security.sessionKeyGranted.subject':
    'Une application a reçu une clé de session pour votre portefeuille dauth',
  'mail.security.sessionKeyGranted.body':
    "L'application {app} a reçu une clé de session : elle peut désormais agir sur votre portefeuille dans les limites de sa politique.",
  'mail.security.waysInRemoved.subject':
    'Votre adresse e-mail dauth est confirmée : les anciennes méthodes de connexion ont été supprimées',
  'mail.security.waysInRemoved.body':
    "Cette adresse e-mail a été confirmée pour votre compte dauth pour la première fois. Tous les moyens de connexion ajoutés avant cette confirmation ont été supprimés, et toutes les sessions, tous les jetons d'applications et toutes les clés de session du compte ont été clos, afin que personne ayant utilisé l'adresse avant vous ne puisse garder l'accès.",
  'mail.security.waysInRemoved.list': 'Supprimé :',
  'mail.security.waysInRemoved.nothing': "Rien d'autre que les sessions n'a dû être supprimé.",
  'mail.security.removed.passkey':
    "une clé d'accès (identifiant {credential}…, ajoutée le {added, date, utc})",
  'mail.security.removed.identity': "l'identité {provider} associée (ajoutée le {added, date, utc})",
  'mail.security.removed.namedIdentity':
    "l'identité {provider} associée « {name} » (ajoutée le {added, date, utc})",
  'mail.security.removed.guestSecret': "le secret d'appareil du compte invité",
  'mail.security.removed.totp': "l'application d'authentification (TOTP) et ses codes de récupération",
  'mail.security.wasYou': "Si c'était vous, vous n'avez rien à faire.",
  'mail.security.notYou':
    "Si ce n'était pas vous, ouvrez ce lien et confirmez : cela vous déconnecte partout, met fin à toutes les clés de session, annule la clé d'accès ou l'identité ajoutée et vous demande de définir un nouveau mot de passe par e-mail.",
  'mail.security.linkValidity':
    "Le lien ne fonctionne qu'une fois, pendant {days, plural, one {# jour} other {# jours}}.",

  'mail.invite.subject': 'Vous êtes invité à rejoindre {org} sur dauth',
  'mail.invite.body':
    "Vous êtes invité à rejoindre l'organisation « {org} » sur dauth en tant que {role, select, admin {administrateur} developer {développeur} viewer {lecteur} other {{role}}}.",
  'mail.invite.accept': "Acceptez l'invitation (connecté avec cette adresse e-mail) :",
  'mail.invite.token': "Ou collez ce jeton d'invitation dans la console ou dans `dauth org accept` :",
  'mail.invite.expires': "L'invitation expire le {expires, date, utc} et ne fonctionne qu'une fois.",
  'mail.invite.notYou': "Si vous ne l'attendiez pas, ignorez cet e-mail.",
} satisfies Translation<typeof en>;
