/**
 * Account-level extended public keys of the public BIP-39 test mnemonic
 * "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about".
 * Demo and local derive customer addresses from these; no one should send real funds to them.
 * Production takes its own keys at deploy time.
 */
export const TEST_WALLET_XPUBS = {
  /** m/44'/60'/0' */
  evm: 'xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt',
  /** m/84'/0'/0' */
  btc: 'xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V',
  /** m/44'/195'/0' */
  tron: 'xpub6D1AabNHCupeiLM65ZR9UStMhJ1vCpyV4XbZdyhMZBiJXALQtmn9p42VTQckoHVn8WNqS7dqnJokZHAHcHGoaQgmv8D45oNUKx6DZMNZBCd',
} as const;
