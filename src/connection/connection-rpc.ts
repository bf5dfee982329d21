/** The connection object's RPC surface: session objects push frames to its socket through it. */
export interface ConnectionRpc extends Rpc.DurableObjectBranded {
  /** Sends frames in order; false tells the session this connection has no socket any more. */
  deliver(frames: string[]): Promise<boolean>;
}
