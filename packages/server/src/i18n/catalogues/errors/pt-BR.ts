import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'errors.title': 'Erro ao entrar',
  'errors.heading': 'Este link de entrada não funciona',
  'errors.advice':
    'O app que trouxe você até aqui pediu algo que o dauth não pode fazer, por isso você não foi levado de volta a ele. Volte ao app e tente novamente; se continuar acontecendo, avise o desenvolvedor do app.',
  'errors.technical': 'Erro {status} {code}: {message}',
  'errors.explanation.redirectUriMismatch':
    'O dauth não conhece este app (client_id), ou o app não registrou o endereço para o qual pediu para voltar (redirect_uri).',
  'errors.explanation.invalidRequest': 'O link de entrada está incompleto ou malformado.',
  'errors.explanation.rateLimited':
    'Muitas tentativas a partir desta rede. Aguarde um minuto e tente novamente.',
  'errors.explanation.invalidCsrfToken':
    'O formulário expirou ou não foi enviado pela página do dauth. Recarregue a página e tente novamente.',
  'errors.explanation.invalidOrigin':
    'O formulário não foi enviado pela página do dauth. Abra novamente o link do e-mail e use o botão dele.',
  'errors.explanation.accountExistsLinkRequired':
    'Já existe uma conta com este endereço de e-mail. Entre nela com sua senha ou passkey e depois vincule este método de entrada pela sua conta.',
  'errors.explanation.identityInUse':
    'Este método de entrada já está vinculado a outra conta dauth. Entre nessa conta ou desvincule-o lá primeiro.',
  'errors.explanation.flowBrowserMismatch':
    'Esta entrada foi iniciada em outro navegador ou janela. Volte ao app e escolha o método de entrada novamente aqui.',
  'errors.explanation.linkBrowserMismatch':
    'A vinculação foi pedida em outro navegador, então nada foi vinculado. Entre na sua conta aqui e faça a vinculação pela página dela.',
  'errors.explanation.invalidState': 'Esta entrada expirou ou já foi usada. Volte ao app e comece de novo.',
  'errors.explanation.invalidLinkTicket':
    'Este pedido de vinculação expirou ou já foi usado. Comece a vinculação novamente pela página da sua conta.',
  'errors.explanation.providerUnavailable':
    'Não é possível acessar o provedor de entrada agora. Tente mais tarde ou use outra forma de entrar.',
  'errors.explanation.upstreamRejected':
    'Não foi possível aceitar a resposta do provedor de entrada. Volte ao app e tente novamente.',
  'errors.explanation.unknownProvider':
    'Esta forma de entrar não está configurada neste dauth. Volte ao app e escolha outra.',
  'errors.explanation.unavailable':
    'O dauth está ocupado ou iniciando agora. Aguarde um momento e tente novamente.',
  'errors.explanation.other':
    'O dauth não conseguiu concluir esta solicitação. Volte ao app e tente novamente.',
} satisfies Translation<typeof en>;
