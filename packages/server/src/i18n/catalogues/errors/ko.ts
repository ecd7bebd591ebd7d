import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'errors.title': '로그인 오류',
  'errors.heading': '이 로그인 링크는 사용할 수 없습니다',
  'errors.advice':
    '여기로 보낸 앱이 dauth가 할 수 없는 요청을 했기 때문에 앱으로 돌아가지 않았습니다. 앱으로 돌아가 다시 시도하세요. 문제가 계속되면 앱 개발자에게 알려 주세요.',
  'errors.technical': '오류 {status} {code}: {message}',
  'errors.explanation.redirectUriMismatch':
    'dauth가 이 앱(client_id)을 알지 못하거나, 앱이 돌아가겠다고 요청한 주소(redirect_uri)를 등록하지 않았습니다.',
  'errors.explanation.invalidRequest': '로그인 링크가 불완전하거나 형식이 잘못되었습니다.',
  'errors.explanation.rateLimited':
    '이 네트워크에서 시도한 횟수가 너무 많습니다. 1분 정도 기다린 후 다시 시도하세요.',
  'errors.explanation.invalidCsrfToken':
    '양식이 만료되었거나 dauth 페이지에서 전송되지 않았습니다. 페이지를 새로 고친 후 다시 시도하세요.',
  'errors.explanation.invalidOrigin':
    '양식이 dauth 페이지에서 전송되지 않았습니다. 이메일의 링크를 다시 열고 해당 페이지의 버튼을 사용하세요.',
  'errors.explanation.accountExistsLinkRequired':
    '이 이메일 주소로 된 계정이 이미 있습니다. 비밀번호나 패스키로 해당 계정에 로그인한 다음 계정에서 이 로그인 방법을 연결하세요.',
  'errors.explanation.identityInUse':
    '이 로그인 방법은 이미 다른 dauth 계정에 연결되어 있습니다. 해당 계정으로 로그인하거나 먼저 그 계정에서 연결을 해제하세요.',
  'errors.explanation.flowBrowserMismatch':
    '이 로그인은 다른 브라우저나 창에서 시작되었습니다. 앱으로 돌아가 여기에서 로그인 방법을 다시 선택하세요.',
  'errors.explanation.linkBrowserMismatch':
    '연결 요청이 다른 브라우저에서 이루어져 아무것도 연결되지 않았습니다. 여기에서 계정에 로그인한 후 계정 페이지에서 연결하세요.',
  'errors.explanation.invalidState':
    '이 로그인은 만료되었거나 이미 사용되었습니다. 앱으로 돌아가 처음부터 다시 시작하세요.',
  'errors.explanation.invalidLinkTicket':
    '이 연결 요청은 만료되었거나 이미 사용되었습니다. 계정 페이지에서 연결을 다시 시작하세요.',
  'errors.explanation.providerUnavailable':
    '지금은 로그인 제공업체에 연결할 수 없습니다. 나중에 다시 시도하거나 다른 방법으로 로그인하세요.',
  'errors.explanation.upstreamRejected':
    '로그인 제공업체의 응답을 받아들일 수 없습니다. 앱으로 돌아가 다시 시도하세요.',
  'errors.explanation.unknownProvider':
    '이 로그인 방법은 이 dauth에 설정되어 있지 않습니다. 앱으로 돌아가 다른 방법을 선택하세요.',
  'errors.explanation.unavailable':
    '지금 dauth가 사용량이 많거나 시작하는 중입니다. 잠시 기다린 후 다시 시도하세요.',
  'errors.explanation.other': 'dauth가 이 요청을 완료하지 못했습니다. 앱으로 돌아가 다시 시도하세요.',
} satisfies Translation<typeof en>;
