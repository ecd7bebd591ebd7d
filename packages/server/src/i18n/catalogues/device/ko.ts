import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'device.title': '기기 연결',
  'device.login.heading': 'dauth에 로그인',
  'device.login.intro': '기기(콘솔, TV 또는 런처)를 계정에 연결하려면 로그인하세요',
  'device.login.wrongPassword': '이메일 또는 비밀번호가 올바르지 않습니다.',
  'device.login.challengeFailed':
    '사람이 로그인하는지 확인하는 과정이 완료되지 않았습니다. 완료될 때까지 기다린 후 다시 로그인하세요.',
  'device.login.accountGuarded':
    '이 계정의 로그인 실패 횟수가 너무 많습니다. 계정으로 이메일 발송된 코드를 비밀번호와 함께 입력하거나 확인이 완료될 때까지 기다리세요.',
  'device.login.emailCodeWrong':
    '이메일로 받은 코드가 잘못되었거나 만료되었거나 이미 사용되었습니다. 계정으로 보낸 최신 코드를 입력하세요.',
  'device.login.stepEnded':
    '잘못된 코드를 너무 많이 입력했거나 로그인 시간이 너무 오래 걸렸습니다. 다시 로그인하세요.',
  'device.code.heading': '기기 연결',
  'device.code.intro': '콘솔, TV 또는 런처에 표시된 코드를 입력하세요.',
  'device.code.label': '코드',
  'device.code.continue': '계속',
  'device.code.wrong': '코드가 잘못되었거나 만료되었습니다. 기기에 표시된 코드를 확인하세요.',
  'device.confirm.heading': '<app>{name}</app>을(를) 연결하시겠습니까?',
  'device.confirm.checkCode': '기기에 코드 <shown>{code}</shown>이(가) 표시되는지 확인하세요.',
  'device.confirm.receives': '해당 기기의 <app>{name}</app>은(는) {items}을(를) 받게 됩니다.',
  'device.confirm.deny': '거부',
  'device.confirm.allow': '허용',
  'device.confirm.signedInAs': '<email>{account}</email>(으)로 로그인되어 있습니다.',
  'device.done.connected': '기기가 연결되었습니다',
  'device.done.connectedText':
    '<app>{name}</app>이(가) 기기에서 로그인하고 있습니다. 이 페이지를 닫아도 됩니다.',
  'device.done.denied': '기기가 연결되지 않았습니다',
  'device.done.deniedText':
    '<app>{name}</app>을(를) 거부했습니다. 아무것도 공유되지 않았습니다. 이 페이지를 닫아도 됩니다.',
} satisfies Translation<typeof en>;
