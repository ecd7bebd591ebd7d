import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'account.secure.title': '계정 보호',
  'account.secure.heading': 'dauth 계정을 보호하시겠습니까?',
  'account.secure.text':
    '이 이메일에서 알려 드린 변경을 직접 하지 않았다면 아래에서 확인하세요. dauth는 모든 곳(모든 앱, 모든 기기)에서 로그아웃하고, 모든 세션 키를 종료하고, 추가된 패스키나 연결된 ID를 되돌리며, 이메일로 받은 코드로 새 비밀번호를 설정할 때까지 모든 로그인을 거부합니다.',
  'account.secure.confirm': '예, 계정을 보호합니다',
  'account.secured.title': '계정 보호됨',
  'account.secured.heading': '계정이 보호되었습니다',
  'account.secured.text':
    'dauth 계정의 모든 세션, 앱 토큰, 세션 키가 종료되었고 보고된 변경이 취소되었습니다. 다시 로그인하려면 이메일로 비밀번호를 재설정하세요.',
  'account.resetPassword': '비밀번호 재설정',
  'account.linkFailed.title': '유효하지 않은 링크',
  'account.linkFailed.heading': '이 링크는 사용할 수 없습니다',
  'account.secureLinkFailed.text':
    '알 수 없거나 만료되었거나 이미 사용된 링크이며, 아무것도 변경되지 않았습니다. 다른 사람이 계정을 사용한다고 생각되면 이메일로 비밀번호를 재설정하세요. 모든 세션이 로그아웃됩니다.',
  'account.verify.title': '이메일 확인',
  'account.verify.heading': '이메일 주소를 확인하시겠습니까?',
  'account.verify.text':
    '이 주소가 본인의 dauth 계정 주소인지 확인하세요. dauth 계정을 만든 적이 없다면 이 창을 닫으세요. 아무 일도 일어나지 않습니다.',
  'account.verify.confirm': '예, 제 주소입니다',
  'account.verified.title': '이메일 확인됨',
  'account.verified.heading': '이메일 주소가 확인되었습니다',
  'account.verified.text': '감사합니다. dauth 이메일 주소가 확인되었습니다. 이 창을 닫아도 됩니다.',
  'account.verifyFailed.title': '확인 실패',
  'account.verifyLinkFailed.text':
    '알 수 없거나 만료되었거나 이미 사용된 링크입니다. 로그인하여 확인 메일을 다시 요청하거나 가장 최근 메일의 코드를 입력하세요.',
} satisfies Translation<typeof en>;
