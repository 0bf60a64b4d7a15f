/**
 * Every served data resource, in the order of `/openapi.json`. A resource is one file under
 * api/resources/<venue>/ (docs/contributing.md, "An endpoint"); a test fails when a file there defines a
 * resource that is not listed here.
 */
import { alphaActivityResource } from './alpha/activity.ts';
import {
  alphaPositionsResource,
  alphaTopHoldersResource,
  alphaWalletPositionsResource,
} from './alpha/positions.ts';
import { alphaProfilesResource } from './alpha/profiles.ts';
import { alphaTradesResource } from './alpha/trades.ts';
import { alphaWalletPnlResource } from './alpha/wallet-pnl.ts';
import type { Resource } from './define.ts';

export const RESOURCES: Resource[] = [
  alphaTradesResource,
  alphaActivityResource,
  // positions
  alphaPositionsResource,
  alphaWalletPositionsResource,
  alphaTopHoldersResource,
  alphaWalletPnlResource,
  alphaProfilesResource,
];
