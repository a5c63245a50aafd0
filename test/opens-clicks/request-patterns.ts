import type { MachineReason } from '../../src/modules/feedback/machine-hits.js'

/**
 * Tracking requests as they reach the pixel and the click redirect, recorded from the clients and services that
 * make them (User-Agent strings as published or logged; addresses from each operator's registered blocks).
 * `ip` is the client address a reverse proxy puts in X-Forwarded-For; `expected` is the machine reason, or null
 * for a person.
 */
export type RequestPattern = {
  name: string
  method: 'GET' | 'HEAD'
  userAgent: string | null
  ip: string
  expected: MachineReason | null
}

const chromeWindows =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36'
const safariIphone =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1'
const gmailProxy = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)'
const yahooProxy = 'YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html'

/** Pixel loads in the seconds after delivery: Apple's prefetch, providers' proxies, gateways. */
export const machineOpensOnDelivery: RequestPattern[] = [
  {
    name: 'Apple MPP from Apple’s 17/8 block',
    method: 'GET',
    userAgent: 'Mozilla/5.0',
    ip: '17.58.63.52',
    expected: 'apple_mpp',
  },
  // Private Relay egress partners (Cloudflare here) carry MPP fetches too; the bare agent gives them away.
  {
    name: 'Apple MPP through a relay partner',
    method: 'GET',
    userAgent: 'Mozilla/5.0',
    ip: '104.28.37.140',
    expected: 'apple_mpp',
  },
  {
    name: 'Apple’s proxy with a full agent',
    method: 'GET',
    userAgent: safariIphone,
    ip: '17.241.219.2',
    expected: 'apple_mpp',
  },
  {
    name: 'Gmail image proxy prefetch',
    method: 'GET',
    userAgent: gmailProxy,
    ip: '66.249.84.91',
    expected: 'proxy_prefetch',
  },
  {
    name: 'Yahoo image proxy prefetch',
    method: 'GET',
    userAgent: yahooProxy,
    ip: '98.136.103.23',
    expected: 'proxy_prefetch',
  },
  {
    name: 'Mimecast gateway',
    method: 'GET',
    userAgent: 'Mozilla/5.0 (compatible; Mimecast Security Scanner/2.0)',
    ip: '207.211.30.44',
    expected: 'scanner',
  },
  { name: 'link checker HEAD', method: 'HEAD', userAgent: chromeWindows, ip: '40.94.31.5', expected: 'head_request' },
  { name: 'no User-Agent at all', method: 'GET', userAgent: null, ip: '52.23.9.1', expected: 'no_user_agent' },
]

/** Pixel loads by people, minutes after delivery. */
export const humanOpens: RequestPattern[] = [
  // Apple Mail with Privacy Protection off loads images itself, with its WebKit agent and no Safari token.
  {
    name: 'Apple Mail on iOS, protection off',
    method: 'GET',
    userAgent:
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
    ip: '82.132.214.10',
    expected: null,
  },
  {
    name: 'Outlook desktop on Windows',
    method: 'GET',
    userAgent:
      'Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 10.0; WOW64; Trident/7.0; .NET4.0C; .NET4.0E; ms-office; MSOffice 16)',
    ip: '81.2.69.160',
    expected: null,
  },
  {
    name: 'Thunderbird',
    method: 'GET',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Gecko/20100101 Thunderbird/115.10.1',
    ip: '151.101.1.6',
    expected: null,
  },
  // Gmail fetches through its proxy when the message is opened, so later loads are the reader's.
  { name: 'Gmail image proxy, read later', method: 'GET', userAgent: gmailProxy, ip: '66.249.84.93', expected: null },
]

/** Clicks a few seconds after delivery: delivery-time detonation, Office's link checks, scripts. */
export const machineClicksOnDelivery: RequestPattern[] = [
  // Microsoft Defender Safe Links detonates with an ordinary browser agent from Microsoft's EOP addresses.
  {
    name: 'Outlook Safe Links detonation',
    method: 'GET',
    userAgent: chromeWindows,
    ip: '40.94.29.17',
    expected: 'clicked_on_delivery',
  },
  { name: 'scanner HEAD', method: 'HEAD', userAgent: chromeWindows, ip: '40.94.29.18', expected: 'head_request' },
  {
    name: 'Office link check',
    method: 'GET',
    userAgent: 'Mozilla/4.0 (compatible; ms-office; MSOffice 16)',
    ip: '52.109.12.3',
    expected: 'scanner',
  },
  {
    name: 'Proofpoint URL Defense',
    method: 'GET',
    userAgent: 'Proofpoint URL Defense/1.0',
    ip: '148.163.129.1',
    expected: 'scanner',
  },
  { name: 'a script', method: 'GET', userAgent: 'python-requests/2.31.0', ip: '198.51.100.20', expected: 'scanner' },
]

/** People clicking, minutes after delivery. */
export const humanClicks: RequestPattern[] = [
  { name: 'Chrome on Windows', method: 'GET', userAgent: chromeWindows, ip: '81.2.69.160', expected: null },
  { name: 'Safari on iPhone', method: 'GET', userAgent: safariIphone, ip: '82.132.214.10', expected: null },
]
