/**
 * The collateral family: ERC-20 transfers of USDC.e and pUSD, and pUSD wraps and unwraps
 * (alpha_collateral). The hot ones usually arrive through the direct lane; these are the logs it declined.
 */
import type { FamilyMapper, MapContext } from './context.ts';
import { str, toU64 } from './context.ts';

export function createCollateralMapper(ctx: MapContext): FamilyMapper {
  return (d, key, _tx, rows) => {
    const a = d.args;
    const c = d.contract;
    const address = ctx.addressOf(c);
    const symbol = ctx.symbols.get(address) ?? c.label;
    if (d.name === 'Transfer') {
      rows.alpha_collateral.push({
        chain_id: key.chain_id,
        block_number: key.block_number,
        block_hash: key.block_hash,
        block_time: key.block_time,
        tx_hash: key.tx_hash,
        log_index: key.log_index,
        status: key.status,
        kind: 'transfer',
        token: address,
        symbol,
        from_address: str(a.from),
        to_address: str(a.to),
        caller: '',
        asset: '',
        amount: toU64(a.value),
      });
    } else {
      rows.alpha_collateral.push({
        ...key,
        kind: d.name === 'Wrapped' ? 'wrap' : 'unwrap',
        token: address,
        symbol,
        from_address: '',
        to_address: str(a.to),
        caller: str(a.caller),
        asset: str(a.asset),
        amount: toU64(a.amount),
      });
    }
  };
}
