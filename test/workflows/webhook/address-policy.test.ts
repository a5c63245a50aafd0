import { describe, expect, it } from 'vitest'
import { checkAddress } from '../../../src/modules/workflows/webhook/index.js'

const refusedAlways: [string, string][] = [
  ['0.0.0.0', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['169.254.169.254', 'linkLocal'],
  ['192.0.2.1', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['::', 'unspecified'],
  ['fe80::1', 'linkLocal'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ['64:ff9b:1::a00:1', 'local-use NAT64'],
  ['::7f00:1', 'reserved'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:169.254.169.254', 'linkLocal'],
]

const privateOnly: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.8.9.10', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.254', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['::1', 'loopback'],
  ['fc00::1', 'uniqueLocal'],
  ['fd12:3456::1', 'uniqueLocal'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['64:ff9b::7f00:1', 'loopback'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:c0a8:101::1', 'private'],
]

const publicAddresses = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
]

describe('checkAddress', () => {
  it.each(refusedAlways)('refuses %s (%s) even when private networks are allowed', (address, range) => {
    expect(checkAddress(address, { allowPrivate: false })).toEqual({ allowed: false, range })
    expect(checkAddress(address, { allowPrivate: true })).toEqual({ allowed: false, range })
  })

  it.each(privateOnly)('refuses %s (%s) unless private networks are allowed', (address, range) => {
    expect(checkAddress(address, { allowPrivate: false })).toEqual({ allowed: false, range })
    expect(checkAddress(address, { allowPrivate: true })).toEqual({ allowed: true })
  })

  it.each(publicAddresses)('allows the public address %s', (address) => {
    expect(checkAddress(address, { allowPrivate: false })).toEqual({ allowed: true })
  })

  it.each(['localhost', '0x7f.1', '0177.0.0.1', ''])('refuses %j, which is no canonical IP address', (text) => {
    expect(checkAddress(text, { allowPrivate: true })).toEqual({ allowed: false, range: 'not an IP address' })
  })
})
