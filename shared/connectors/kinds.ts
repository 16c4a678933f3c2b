/**
 * The connectors a stage's provider may be reached through, by the `kind` its configuration names
 * (docs/operations.md#stage-configuration): each turns the domain's provider port
 * (`PaymentProvider`) into its partner's messages and back. A partner with an API of its own is one
 * more folder beside `protocol/` and one more entry here; the domain does not change.
 */
import type { PaymentProvider } from '../domain/providers/index.js';
import { ProtocolProvider } from './protocol/connector.js';

/** What every connector is built from: the provider's id, base URL and secret (read on each call, cached by the registry). */
export interface ConnectorSettings {
  id: string;
  url: string;
  secret: () => Promise<string>;
}

export type Connector = (settings: ConnectorSettings) => PaymentProvider;

export const CONNECTORS = {
  /** The signed-HTTP provider protocol (docs/provider-protocol.md), which the demo provider speaks. */
  protocol: (settings) => new ProtocolProvider(settings),
} as const satisfies Record<string, Connector>;

export type ConnectorKind = keyof typeof CONNECTORS;
export const CONNECTOR_KINDS = Object.keys(CONNECTORS) as [ConnectorKind, ...ConnectorKind[]];
/** A provider whose configuration names no kind speaks the provider protocol. */
export const DEFAULT_CONNECTOR: ConnectorKind = 'protocol';
