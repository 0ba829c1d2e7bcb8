import { blake2b } from '@noble/hashes/blake2.js';
import { describe, expect, it } from 'vitest';
import type { ChainOutput, ChainTx } from '../../../src/service/chain/block';
import { poolOutputs } from '../../../src/service/chain/dexes/index';
import { vyFi, vyFiDecoder } from '../../../src/service/chain/dexes/vyfi';
import { BUNDLED_VYFI_POOLS } from '../../../src/service/chain/dexes/vyfi-pools';
import { fromOgmiosBlock } from '../../../src/service/chain/ogmios-block';
import { DatumError } from '../../../src/service/chain/plutus';
import { paymentScriptOf } from '../../support/addresses';
import { fixtureOutput, fixtureTx, readChainFixture, type FixtureOutput } from '../../support/chain-fixtures';
import { ensureDefined } from '../../support/ensure';
import { marketPools } from '../../support/fixture-market';
import { hasPrise, realOgmiosBlocks } from '../../support/prise';

/**
 * VyFi on its real mainnet pool outputs found in public repositories (tests/fixtures/chain/vyfi.json,
 * sources in its README: maestro's ADA/VYFI transaction, nau/scalus's mainnet blocks, plutigo's replay
 * corpus). Every expected number is derived by hand from the output's value and its witness datum
 * (Constr 0 [barFeeA, barFeeB, totalLpTokens], read with a CBOR tool; e.g. ADA/VYFI's
 *   d8799f 1a19abde7e 1a08f9be91 1b000002e46f4eeb64 ff = [430_694_014, 150_584_977, 3_180_143_242_084]),
 * the arithmetic beside it: a reserve is the output's amount less its Bar fee, and an ADA side also less
 * the 2 ADA every VyFi pool keeps. Price and TVL are the model's (ADA base; tokens have decimals 0 in a
 * fresh chain market, so a price is ADA per raw token unit).
 */
const fixture = readChainFixture('vyfi.json');
const output = (tx: string): FixtureOutput =>
  ensureDefined(
    fixture.outputs.find((o) => o.tx.startsWith(tx)),
    `fixture output ${tx}`,
  );
const decode = (raw: FixtureOutput) => vyFi.decode(fixtureOutput(raw), fixtureTx(raw));

const ADA = '';
const VYFI = '804f5544c1962a40546827cab750a88404dc7108c0f588b72964754f56594649';
const XVYFI = 'b316f8f668aca7359ecc6073475c0c8106239bf87e05a3a1bd5697647856594649';
const SNEK = '279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f534e454b';
const COPI =
  'b6a7467ea1deb012808ef4e87b5ff371e85f7142d7b356a40d9b42a0436f726e75636f70696173205b76696120436861696e506f72742e696f5d';
const DJED = '8db269c3ec630e06ae29f74bc39edd1f87c819f1056206e879a1cd61446a65644d6963726f555344';
const AGIX = 'f43a62fdc3965df486de8a0d32fe800963589c41b38946602a0dc53541474958';
const OPTIM = 'e52964af4fffdb54504859875b1827b60ba679074996156461143dc14f5054494d';
const NTX = 'edfd7a1d77bcb8b884c474bdc92a16002d1fb720e454fa6e993444794e5458';
const BTN = '016be5325fd988fea98ad422fcfd53e5352cacfced5c106a932a35a442544e';
const STRIKE = 'f13ac4d66b3ee19a6aa0f2a22298737bd907cc95121662fc971b5275535452494b45';
const VLRM = '63efb704b7396890e4d9539d030c0e667739043add65c00f96c586c056616c6f72756d';

/**
 * The eleven VyFi pools these real outputs belong to (the pools the decoder knew by their NFT before
 * it read VyFi's pool list): the NFT each pool's outputs hold (quantity 1, empty name), the validator
 * their address pays to (its payment script hash, read from the address with a bech32 tool) and the
 * pair, A and B as VyFi orders them, which the LP tokens the transactions mint or burn name
 * (`VyFi_ADA/COPI_LP`, `VyFi_ADA/DJED_LP`, `VyFi_ADA/VLRM_LP`, `VyFi_ADA/VYFI_LP`) and the side each
 * swap's Bar fee falls on confirm. Sources per output in tests/fixtures/chain/README.md.
 */
const SEEN_POOLS = [
  {
    pair: 'ADA/VYFI',
    nft: 'c285d6d7e61163b7f7a918f28e450e37d55dc684450d87b96750d8db',
    validator: '730d04da38ffb7756072340338098c04413e75fedfb5669289e7c7bf',
    assetA: ADA,
    assetB: VYFI,
  },
  {
    pair: 'ADA/SNEK',
    nft: '96c31772282e6ae5c629120471c5bbcdef538226b31b97d74c50ca3c',
    validator: '232c10966ce4d8e67c2eae17bb57c2cf4854a57509a752fbb3c02bd1',
    assetA: ADA,
    assetB: SNEK,
  },
  {
    pair: 'ADA/COPI',
    nft: '27dd6f6398d16dd1d138c313aa80619ce45d94ba526b3882d32a66bd',
    validator: '04321298f7df820d6f7550f5f3a5e5aa2fc1b0a646b351f663038684',
    assetA: ADA,
    assetB: COPI,
  },
  {
    pair: 'VYFI/xVYFI',
    nft: '206b822eb65a0e90305b7dabf92bf2228180b437c667ae88756065d5',
    validator: '8bdcc45dff68defbf417575ebd29f1e1f24b662ff5ae61667de91ea8',
    assetA: VYFI,
    assetB: XVYFI,
  },
  {
    pair: 'ADA/DJED',
    nft: '7fe95f7516f5a53f835f80ce1053eec933efba9c1b49fab0f7398bc2',
    validator: '99a917d3773ff635dacebc6908284ea402656ceab373eb3a5a007df4',
    assetA: ADA,
    assetB: DJED,
  },
  {
    pair: 'ADA/AGIX',
    nft: '1cb50c08ba6e1b766da3fd977c13fcc5feecbcba31f1515c479c55af',
    validator: '468864e2b5f0f28092b1d879261185d36bacf448d3dffde45c2b78c0',
    assetA: ADA,
    assetB: AGIX,
  },
  {
    pair: 'ADA/OPTIM',
    nft: '0844a33282346eca6872a3827eadc3818f8175f7df3e04e4bc02ab77',
    validator: 'f7ba0c0692fcf462884cfa0936604fccf841c819905d60d9e9e60cf1',
    assetA: ADA,
    assetB: OPTIM,
  },
  {
    pair: 'ADA/NTX',
    nft: 'aa749679585b92b61dab482e585d0edfc98e55c36c080c517cde50c4',
    validator: '3752c1bb5e0b535e6ac0d369e7e57d21e95d4cf614a36a94ded781d4',
    assetA: ADA,
    assetB: NTX,
  },
  {
    pair: 'ADA/BTN',
    nft: '4b29b9203fbbf66ff1190668f375b91ac6af0814f17c57d5af3ab495',
    validator: '2303d158c69aa3ca38657f6d97225f2a35d331608901907f42ffbc47',
    assetA: ADA,
    assetB: BTN,
  },
  {
    pair: 'ADA/STRIKE',
    nft: 'f2bc52e3a23df906c8751f200bea6283ac60c9ef9567ec0c6a974b8e',
    validator: '3594895029c12577fb90151c02a07825faae2bc7c456ac326182e2c7',
    assetA: ADA,
    assetB: STRIKE,
  },
  {
    pair: 'ADA/VLRM',
    nft: 'f9551ef6c71ef4eb0fb62edac452430e15526f69701bcd9ab33fb704',
    validator: '2d8e5c1fc9dddc236642f3179368584c3294da18872b6d21b3bd0743',
    assetA: ADA,
    assetB: VLRM,
  },
] as const;

interface Expected {
  readonly tx: string;
  readonly poolId: string;
  readonly assetA: string;
  readonly assetB: string;
  readonly reserveA: bigint;
  readonly reserveB: bigint;
  readonly liquidity: bigint;
  readonly price: number;
  readonly tvl: number;
}

/** Every fixture output, in the file's order (a pool's outputs oldest first). */
const EXPECTED: readonly Expected[] = [
  {
    // ADA/VYFI after a deposit (maestro), 39d10447…#0. Datum [430_694_014, 150_584_977, 3_180_143_242_084].
    tx: '39d10447',
    poolId: 'c285d6d7e61163b7f7a918f28e450e37d55dc684450d87b96750d8db',
    assetA: ADA,
    assetB: VYFI,
    reserveA: 2_781_364_544_173n, // 2_781_797_238_187 lovelace − 430_694_014 bar fee A − 2_000_000 kept
    reserveB: 3_807_266_875_668n, // 3_807_417_460_645 VYFI − 150_584_977 bar fee B
    liquidity: 3_180_143_242_084n,
    price: 7.305409983073484e-7, // 2_781_364.544173 ADA / 3_807_266_875_668
    tvl: 5562729.088346, // 2 × 2_781_364.544173 ADA
  },
  {
    // ADA/BTN after a swap, block 10,296,200, 2bf541bc…#0. Datum [24_459_997, 17_085_103, 10_542_505_739].
    tx: '2bf541bc',
    poolId: '4b29b9203fbbf66ff1190668f375b91ac6af0814f17c57d5af3ab495',
    assetA: ADA,
    assetB: BTN,
    reserveA: 13_084_373_412n, // 13_110_833_409 lovelace − 24_459_997 bar fee A − 2_000_000 kept
    reserveB: 8_814_528_006n, // 8_831_613_109 BTN − 17_085_103 bar fee B
    liquidity: 10_542_505_739n,
    price: 1.4844099880440042e-6, // 13_084.373412 ADA / 8_814_528_006
    tvl: 26168.746824, // 2 × 13_084.373412 ADA
  },
  {
    // ADA/SNEK before the swap of c7157d4d… (its pool input), b3caf96c…#0. Datum [20_751_669, 5_086, 3_967_600_727].
    tx: 'b3caf96c',
    poolId: '96c31772282e6ae5c629120471c5bbcdef538226b31b97d74c50ca3c',
    assetA: ADA,
    assetB: SNEK,
    reserveA: 380_297_264_219n, // 380_320_015_888 lovelace − 20_751_669 bar fee A − 2_000_000 kept
    reserveB: 78_067_145n, // 78_072_231 SNEK − 5_086 bar fee B
    liquidity: 3_967_600_727n,
    price: 0.004871412477284778, // 380_297.264219 ADA / 78_067_145
    tvl: 760594.528438, // 2 × 380_297.264219 ADA
  },
  {
    // ADA/SNEK after a swap, block 11,544,748, c7157d4d…#0. Datum [20_751_669, 5_613, 3_967_600_727].
    tx: 'c7157d4d',
    poolId: '96c31772282e6ae5c629120471c5bbcdef538226b31b97d74c50ca3c',
    assetA: ADA,
    assetB: SNEK,
    reserveA: 377_750_089_361n, // 377_772_841_030 lovelace − 20_751_669 bar fee A − 2_000_000 kept
    reserveB: 78_594_608n, // 78_600_221 SNEK − 5_613 bar fee B
    liquidity: 3_967_600_727n,
    price: 0.004806310496020287, // 377_750.089361 ADA / 78_594_608
    tvl: 755500.178722, // 2 × 377_750.089361 ADA
  },
  {
    // ADA/COPI after a deposit, block 11,553,070, d6cd8d0d…#0. Datum [11_857_769, 1_191_122_539, 702_055_183_518].
    tx: 'd6cd8d0d',
    poolId: '27dd6f6398d16dd1d138c313aa80619ce45d94ba526b3882d32a66bd',
    assetA: ADA,
    assetB: COPI,
    reserveA: 109_331_918_329n, // 109_345_776_098 lovelace − 11_857_769 bar fee A − 2_000_000 kept
    reserveB: 5_006_252_179_671n, // 5_007_443_302_210 COPI − 1_191_122_539 bar fee B
    liquidity: 702_055_183_518n,
    price: 2.1839075301273587e-8, // 109_331.918329 ADA / 5_006_252_179_671
    tvl: 218663.836658, // 2 × 109_331.918329 ADA
  },
  {
    // VYFI/xVYFI after a swap, block 11,554,633; no ADA side (its 2 ADA are no reserve), 14541011…#0. Datum [2_384_948, 5_017_030, 441_954_809_816].
    tx: '14541011',
    poolId: '206b822eb65a0e90305b7dabf92bf2228180b437c667ae88756065d5',
    assetA: VYFI,
    assetB: XVYFI,
    reserveA: 503_431_889_659n, // 503_434_274_607 VYFI − 2_384_948 bar fee A
    reserveB: 393_926_950_264n, // 393_931_967_294 xVYFI − 5_017_030 bar fee B
    liquidity: 441_954_809_816n,
    price: 1.2779828577902896, // 503_431_889_659 / 393_926_950_264 (raw VYFI per raw xVYFI)
    tvl: 1_006_863_779_318, // 2 × 503_431_889_659 VYFI (raw)
  },
  {
    // ADA/DJED after a swap, block 11,560,713, a5e75b10…#0. Datum [4_688_704, 5_446_962, 36_232_513_196].
    tx: 'a5e75b10',
    poolId: '7fe95f7516f5a53f835f80ce1053eec933efba9c1b49fab0f7398bc2',
    assetA: ADA,
    assetB: DJED,
    reserveA: 43_332_251_053n, // 43_338_939_757 lovelace − 4_688_704 bar fee A − 2_000_000 kept
    reserveB: 39_337_872_571n, // 39_343_319_533 DJED − 5_446_962 bar fee B
    liquidity: 36_232_513_196n,
    price: 1.1015402771156635e-6, // 43_332.251053 ADA / 39_337_872_571
    tvl: 86664.502106, // 2 × 43_332.251053 ADA
  },
  {
    // ADA/SNEK after a swap, block 11,584,530, 7f8b862f…#0. Datum [282_727_002, 68_291, 3_250_518_011].
    tx: '7f8b862f',
    poolId: '96c31772282e6ae5c629120471c5bbcdef538226b31b97d74c50ca3c',
    assetA: ADA,
    assetB: SNEK,
    reserveA: 293_802_440_279n, // 294_087_167_281 lovelace − 282_727_002 bar fee A − 2_000_000 kept
    reserveB: 68_685_284n, // 68_753_575 SNEK − 68_291 bar fee B
    liquidity: 3_250_518_011n,
    price: 0.004277516567872093, // 293_802.440279 ADA / 68_685_284
    tvl: 587604.880558, // 2 × 293_802.440279 ADA
  },
  {
    // ADA/AGIX after a swap, block 11,605,101, 4bae54a8…#0. Datum [8_606_414, 2_389_961_841, 2_044_607_959_319].
    tx: '4bae54a8',
    poolId: '1cb50c08ba6e1b766da3fd977c13fcc5feecbcba31f1515c479c55af',
    assetA: ADA,
    assetB: AGIX,
    reserveA: 122_172_578_913n, // 122_183_185_327 lovelace − 8_606_414 bar fee A − 2_000_000 kept
    reserveB: 39_837_955_206_494n, // 39_840_345_168_335 AGIX − 2_389_961_841 bar fee B
    liquidity: 2_044_607_959_319n,
    price: 3.066738196770817e-9, // 122_172.578913 ADA / 39_837_955_206_494
    tvl: 244345.157826, // 2 × 122_172.578913 ADA
  },
  {
    // ADA/OPTIM after a swap, block 11,606,121, c2c59de6…#0. Datum [4_865_086, 3_246_676_708, 8_258_841_651].
    tx: 'c2c59de6',
    poolId: '0844a33282346eca6872a3827eadc3818f8175f7df3e04e4bc02ab77',
    assetA: ADA,
    assetB: OPTIM,
    reserveA: 265_762_081n, // 272_627_167 lovelace − 4_865_086 bar fee A − 2_000_000 kept
    reserveB: 348_706_392_870n, // 351_953_069_578 OPTIM − 3_246_676_708 bar fee B
    liquidity: 8_258_841_651n,
    price: 7.621371056970493e-10, // 265.762081 ADA / 348_706_392_870
    tvl: 531.524162, // 2 × 265.762081 ADA
  },
  {
    // ADA/NTX after a swap, block 11,610,806, bf019520…#0. Datum [11_217_600, 465_377_257, 426_712_924_021].
    tx: 'bf019520',
    poolId: 'aa749679585b92b61dab482e585d0edfc98e55c36c080c517cde50c4',
    assetA: ADA,
    assetB: NTX,
    reserveA: 66_822_720_744n, // 66_835_938_344 lovelace − 11_217_600 bar fee A − 2_000_000 kept
    reserveB: 2_907_706_174_542n, // 2_908_171_551_799 NTX − 465_377_257 bar fee B
    liquidity: 426_712_924_021n,
    price: 2.2981249387939074e-8, // 66_822.720744 ADA / 2_907_706_174_542
    tvl: 133645.441488, // 2 × 66_822.720744 ADA
  },
  {
    // ADA/DJED after a withdrawal, block 11,611,176, 5aee5d3f…#0. Datum [11_231_399, 8_041_948, 30_259_785_571].
    tx: '5aee5d3f',
    poolId: '7fe95f7516f5a53f835f80ce1053eec933efba9c1b49fab0f7398bc2',
    assetA: ADA,
    assetB: DJED,
    reserveA: 41_070_330_479n, // 41_083_561_878 lovelace − 11_231_399 bar fee A − 2_000_000 kept
    reserveB: 29_089_324_518n, // 29_097_366_466 DJED − 8_041_948 bar fee B
    liquidity: 30_259_785_571n,
    price: 1.4118695143156847e-6, // 41_070.330479 ADA / 29_089_324_518
    tvl: 82140.660958, // 2 × 41_070.330479 ADA
  },
  {
    // ADA/SNEK after a swap, block 11,611,176, acf58fa6…#0. Datum [25_262_932, 6_369, 3_155_079_658].
    tx: 'acf58fa6',
    poolId: '96c31772282e6ae5c629120471c5bbcdef538226b31b97d74c50ca3c',
    assetA: ADA,
    assetB: SNEK,
    reserveA: 289_761_588_767n, // 289_788_851_699 lovelace − 25_262_932 bar fee A − 2_000_000 kept
    reserveB: 65_996_963n, // 66_003_332 SNEK − 6_369 bar fee B
    liquidity: 3_155_079_658n,
    price: 0.004390529133393608, // 289_761.588767 ADA / 65_996_963
    tvl: 579523.177534, // 2 × 289_761.588767 ADA
  },
  {
    // ADA/BTN after a swap, block 11,649,988, cbd829f7…#0. Datum [6_549_925, 14_464_725, 12_419_463_914].
    tx: 'cbd829f7',
    poolId: '4b29b9203fbbf66ff1190668f375b91ac6af0814f17c57d5af3ab495',
    assetA: ADA,
    assetB: BTN,
    reserveA: 9_287_946_442n, // 9_296_496_367 lovelace − 6_549_925 bar fee A − 2_000_000 kept
    reserveB: 19_132_345_761n, // 19_146_810_486 BTN − 14_464_725 bar fee B
    liquidity: 12_419_463_914n,
    price: 4.854577979106385e-7, // 9_287.946442 ADA / 19_132_345_761
    tvl: 18575.892884, // 2 × 9_287.946442 ADA
  },
  {
    // ADA/STRIKE after a swap, block 11,650,496, 3d2e959a…#0. Datum [20_889_305, 86_559_651, 16_410_666_149].
    tx: '3d2e959a',
    poolId: 'f2bc52e3a23df906c8751f200bea6283ac60c9ef9567ec0c6a974b8e',
    assetA: ADA,
    assetB: STRIKE,
    reserveA: 7_763_635_424n, // 7_786_524_729 lovelace − 20_889_305 bar fee A − 2_000_000 kept
    reserveB: 35_395_520_524n, // 35_482_080_175 STRIKE − 86_559_651 bar fee B
    liquidity: 16_410_666_149n,
    price: 2.1933949011248053e-7, // 7_763.635424 ADA / 35_395_520_524
    tvl: 15527.270848, // 2 × 7_763.635424 ADA
  },
  {
    // ADA/AGIX after a swap, block 11,660,768 (Bar fees served before it: bar fee A is 0), bc4bd679…#0. Datum [0, 188_321_203, 2_044_607_959_319].
    tx: 'bc4bd679',
    poolId: '1cb50c08ba6e1b766da3fd977c13fcc5feecbcba31f1515c479c55af',
    assetA: ADA,
    assetB: AGIX,
    reserveA: 125_176_069_511n, // 125_178_069_511 lovelace − 0 bar fee A − 2_000_000 kept
    reserveB: 38_912_506_587_521n, // 38_912_694_908_724 AGIX − 188_321_203 bar fee B
    liquidity: 2_044_607_959_319n,
    price: 3.216859577767298e-9, // 125_176.069511 ADA / 38_912_506_587_521
    tvl: 250352.139022, // 2 × 125_176.069511 ADA
  },
  {
    // ADA/VLRM before the withdrawal of dc051733… (plutigo), a1237de1…#0. Datum [12_805_282, 26_584_283, 14_634_924_554].
    tx: 'a1237de1',
    poolId: 'f9551ef6c71ef4eb0fb62edac452430e15526f69701bcd9ab33fb704',
    assetA: ADA,
    assetB: VLRM,
    reserveA: 9_439_778_908n, // 9_454_584_190 lovelace − 12_805_282 bar fee A − 2_000_000 kept
    reserveB: 23_598_529_983n, // 23_625_114_266 VLRM − 26_584_283 bar fee B
    liquidity: 14_634_924_554n,
    price: 4.000155482057681e-7, // 9_439.778908 ADA / 23_598_529_983
    tvl: 18879.557816, // 2 × 9_439.778908 ADA
  },
  {
    // ADA/VLRM after a withdrawal (plutigo), dc051733…#0. Datum [12_805_282, 26_584_283, 13_808_770_346].
    tx: 'dc051733',
    poolId: 'f9551ef6c71ef4eb0fb62edac452430e15526f69701bcd9ab33fb704',
    assetA: ADA,
    assetB: VLRM,
    reserveA: 8_906_895_187n, // 8_921_700_469 lovelace − 12_805_282 bar fee A − 2_000_000 kept
    reserveB: 22_266_372_460n, // 22_292_956_743 VLRM − 26_584_283 bar fee B
    liquidity: 13_808_770_346n,
    price: 4.0001554824435916e-7, // 8_906.895187 ADA / 22_266_372_460
    tvl: 17813.790374, // 2 × 8_906.895187 ADA
  },
];

/** |a/b − 1| below 1e-12: the model's floating-point price and TVL against the hand-derived ones. */
const close = (actual: number | undefined, expected: number, what: string) =>
  expect(Math.abs((actual ?? Number.NaN) / expected - 1), what).toBeLessThan(1e-12);

describe('VyFi decoder on real mainnet outputs', () => {
  it('has each fixture datum as the witness of its output datum hash', () => {
    for (const raw of fixture.outputs)
      expect(
        Buffer.from(blake2b(Buffer.from(raw.witnessDatum ?? '', 'hex'), { dkLen: 32 })).toString('hex'),
        raw.tx,
      ).toBe(raw.datumHash);
  });

  it('expects every fixture output, and every pool seen is among them', () => {
    expect(EXPECTED.map((e) => e.tx)).toEqual(fixture.outputs.map((o) => o.tx.slice(0, 8)));
    expect(new Set(SEEN_POOLS.map((p) => p.nft))).toEqual(new Set(EXPECTED.map((e) => e.poolId)));
  });

  it('finds every pool seen in the bundled list: its outputs pay to the validator listed with its pair', () => {
    for (const e of EXPECTED) {
      const seen = ensureDefined(
        SEEN_POOLS.find((p) => p.nft === e.poolId),
        e.tx,
      );
      expect(paymentScriptOf(output(e.tx).address), e.tx).toBe(seen.validator);
      expect([e.assetA, e.assetB], e.tx).toEqual([seen.assetA, seen.assetB]);
    }
    for (const seen of SEEN_POOLS) {
      expect(
        BUNDLED_VYFI_POOLS.pools.find((p) => p.validator === seen.validator),
        seen.pair,
      ).toEqual({ validator: seen.validator, assetA: seen.assetA, assetB: seen.assetB, feeBps: 30 });
    }
  });

  it('decodes each to the reserves (less the Bar fees and the 2 ADA kept), LP supply and fee derived by hand', () => {
    for (const e of EXPECTED) {
      const raw = output(e.tx);
      expect(vyFi.isPool(fixtureOutput(raw)), e.tx).toBe(true);
      expect(decode(raw), e.tx).toEqual({
        group: 'VyFi',
        poolId: e.poolId,
        assetA: e.assetA,
        assetB: e.assetB,
        reserveA: e.reserveA,
        reserveB: e.reserveB,
        liquidity: e.liquidity,
        feeBps: 30,
      });
    }
  });

  it('is what poolOutputs finds in a transaction holding the pool output', () => {
    for (const e of EXPECTED) {
      const raw = output(e.tx);
      expect(poolOutputs(fixtureTx(raw)), e.tx).toEqual([{ index: raw.index, state: decode(raw) }]);
    }
  });

  it('gives the price and TVL derived by hand once a chain market holds the pools', async () => {
    // Rounds of one state per pool (a pool's n-th output in round n), each round a fresh market.
    const rounds: Expected[][] = [];
    const seen = new Map<string, number>();
    for (const e of EXPECTED) {
      const n = seen.get(e.poolId) ?? 0;
      seen.set(e.poolId, n + 1);
      (rounds[n] ??= []).push(e);
    }
    for (const round of rounds) {
      const pools = await marketPools(round.map((e) => output(e.tx)));
      for (const e of round) {
        const pool = ensureDefined(pools.get(e.poolId), `pool ${e.tx}`);
        expect(pool.pool.group).toBe('VyFi');
        expect(pool.pool.pair.base.unit, e.tx).toBe(e.assetA);
        expect(pool.pool.pair.quote.unit, e.tx).toBe(e.assetB);
        expect(pool.pool.feeBps).toBe(30);
        close(pool.price, e.price, `price ${e.tx}`);
        close(pool.tvl, e.tvl, `TVL ${e.tx}`);
      }
    }
  }, 30_000);
});

describe('VyFi reserves against what real transactions paid', () => {
  it('a swap: the 527,990 SNEK in give exactly the lovelace the ADA/SNEK pool paid (c7157d4d…)', () => {
    const before = decode(output('b3caf96c'));
    const after = decode(output('c7157d4d'));
    // In: 78_600_221 − 78_072_231 = 527_990 SNEK. Bar fee ⌊527_990 × 10 / 10_000⌋ = 527 (the datum's bar fee B
    // goes 5_086 → 5_613), LP fee ⌊527_990 × 20 / 10_000⌋ = 1_055: 526_408 SNEK trade.
    expect(after.reserveB).toBe(before.reserveB + 527_990n - 527n);
    // Paid: 380_320_015_888 − 377_772_841_030 = 2_547_174_858 lovelace (the chain's own figure).
    // ⌊380_297_264_219 × 526_408 / (78_067_145 + 526_408)⌋ = 2_547_174_858 with the 2 ADA kept out of the
    // reserve; with them in (380_299_264_219) it would be 2_547_188_254.
    expect((before.reserveA * 526_408n) / (before.reserveB + 526_408n)).toBe(2_547_174_858n);
    expect(after.reserveA).toBe(before.reserveA - 2_547_174_858n);
    expect(after.liquidity).toBe(before.liquidity);
  });

  it('a withdrawal: burning 826,154,208 LP gives exactly the ADA and VLRM the ADA/VLRM pool paid (dc051733…)', () => {
    const before = decode(output('a1237de1'));
    const after = decode(output('dc051733'));
    // Burnt: 14_634_924_554 − 13_808_770_346 = 826_154_208 VyFi_ADA/VLRM_LP (the transaction's mint field).
    expect(before.liquidity - after.liquidity).toBe(826_154_208n);
    // Paid: 9_454_584_190 − 8_921_700_469 = 532_883_721 lovelace and 23_625_114_266 − 22_292_956_743 = 1_332_157_523 VLRM.
    // ⌊9_439_778_908 × 826_154_208 / 14_634_924_554⌋ = 532_883_721 (with the 2 ADA in the reserve: 532_996_623);
    // ⌊23_598_529_983 × 826_154_208 / 14_634_924_554⌋ = 1_332_157_523.
    expect((before.reserveA * 826_154_208n) / before.liquidity).toBe(532_883_721n);
    expect((before.reserveB * 826_154_208n) / before.liquidity).toBe(1_332_157_523n);
    expect(after.reserveA).toBe(before.reserveA - 532_883_721n);
    expect(after.reserveB).toBe(before.reserveB - 1_332_157_523n);
  });
});

/** ADA/VYFI's output with another datum (inline) or value: what a damaged pool output looks like. */
const raw = output('39d10447');
/** The payment script hash of ADA/VYFI's address (addr1z9es6px6…). */
const ADA_VYFI_VALIDATOR = '730d04da38ffb7756072340338098c04413e75fedfb5669289e7c7bf';
function damaged(
  datum: string,
  value: Readonly<Record<string, string>> = raw.value,
): { output: ChainOutput; tx: ChainTx } {
  const copy: FixtureOutput = { tx: raw.tx, index: raw.index, address: raw.address, value, datum };
  return { output: fixtureOutput(copy), tx: fixtureTx(copy) };
}

describe('VyFi decoder on damaged and foreign outputs', () => {
  it('reads a damaged pool datum as a DatumError, and poolOutputs reports it without throwing', () => {
    const cases: [string, string, RegExp][] = [
      ['constructor 1 instead of 0', 'd87a9f1a19abde7e1a08f9be911b000002e46f4eeb64ff', /constructor 1, expected 0/],
      ['a missing field', 'd8799f1a19abde7e1a08f9be91ff', /2 fields, expected 3/],
      ['a field that is not an integer', 'd8799f1a19abde7e41011b000002e46f4eeb64ff', /bar fee B: not an integer/],
      // bar fee B 1b 0000037… = 3,807,417,460,646: one VYFI more than the pool holds
      [
        'bar fees larger than the pool',
        'd8799f1a19abde7e1b000003767bc3e7a61b000002e46f4eeb64ff',
        /bar fees larger than the pool/,
      ],
      // bar fee A 1b 00000287afeac12c = 2,781,795,238,188 = 2,781,797,238,187 − 1,999,999: less than the 2 ADA left
      [
        'bar fee A eating into the 2 ADA kept',
        'd8799f1b00000287afeac12c1a08f9be911b000002e46f4eeb64ff',
        /bar fees larger than the pool/,
      ],
      ['a negative bar fee', 'd8799f3a19abde7e1a08f9be911b000002e46f4eeb64ff', /negative/],
    ];
    for (const [what, datum, message] of cases) {
      const { output: out, tx } = damaged(datum);
      expect(vyFi.isPool(out), what).toBe(true);
      let error: unknown;
      try {
        vyFi.decode(out, tx);
      } catch (caught) {
        error = caught;
      }
      expect(error, what).toBeInstanceOf(DatumError);
      expect((error as Error).message, what).toMatch(message);
      expect(poolOutputs(tx), what).toEqual([{ index: 0, group: 'VyFi', error: (error as Error).message }]);
    }
  });

  it('reads a pool output whose datum is missing from the transaction as a DatumError', () => {
    expect(() => vyFi.decode(fixtureOutput(raw), { ...fixtureTx(raw), datums: new Map() })).toThrow(
      /VyFi pool datum missing/,
    );
  });

  it("takes the outputs at a listed pool validator, not other DEXs' pools or an output of a pool the list lacks", () => {
    // At the ADA/VYFI validator, whatever it holds: a DatumError when decoded (dex-vyfi-list.test.ts).
    const plain: ChainOutput = { index: 0, address: raw.address, lovelace: 2_000_000n, assets: new Map([[VYFI, 5n]]) };
    expect(vyFi.isPool(plain)).toBe(true);
    for (const other of readChainFixture('muesliswap.json').outputs)
      expect(vyFi.isPool(fixtureOutput(other))).toBe(false);
    // A decoder given no pools takes nothing, this one included.
    expect(vyFiDecoder([]).isPool(fixtureOutput(raw))).toBe(false);
  });

  it('decodes a pool given to it by its list (A and B as the list orders them)', () => {
    const reversed = vyFiDecoder([{ validator: ADA_VYFI_VALIDATOR, assetA: VYFI, assetB: '', feeBps: 25 }]);
    // The same datum read with the list's order: bar fee A (430,694,014) now taken from VYFI, B (150,584,977) from lovelace.
    expect(reversed.decode(fixtureOutput(raw), fixtureTx(raw))).toMatchObject({
      poolId: 'c285d6d7e61163b7f7a918f28e450e37d55dc684450d87b96750d8db',
      assetA: VYFI,
      assetB: '',
      // 3,807,417,460,645 − 430,694,014
      reserveA: 3_806_986_766_631n,
      // 2,781,797,238,187 − 150,584,977 − 2,000,000 kept
      reserveB: 2_781_644_653_210n,
      feeBps: 25,
    });
  });
});

describe.skipIf(!hasPrise)("VyFi in prise's real blocks", () => {
  it('takes none of the outputs of the ten blocks (no listed VyFi pool moved in them)', () => {
    const taken = realOgmiosBlocks()
      .map((b) => fromOgmiosBlock(b))
      .flatMap((block) => block.transactions.flatMap((tx) => tx.outputs.filter((out) => vyFi.isPool(out))));
    expect(taken).toEqual([]);
  });
});
