import { ConfidentialClientApplication } from "@azure/msal-node";
import {
  type Activity,
  CloudAdapter,
  ConfigurationBotFrameworkAuthentication,
  type InvokeResponse,
  type TurnContext,
} from "botbuilder";
import {
  ClaimsIdentity,
  type ConnectorClient,
  type ConnectorFactory,
  type MsalServiceClientCredentialsFactory,
} from "botframework-connector";
import type { TeamsConfig } from "../../src/config/load-config.js";
import { KeptTokenCredentialsFactory } from "./bot-token.js";
import type { VerifiedClaims } from "./verify.js";

type MsalClient = ConstructorParameters<typeof MsalServiceClientCredentialsFactory>[1];

/** The audience of the bot's own token for the Bot Connector. */
const CONNECTOR_SCOPE = "https://api.botframework.com";

/**
 * botbuilder's CloudAdapter as the bot uses it: the Bot Connector client (replies, edits and
 * proactive posts at the conversation's `serviceUrl`, keeping its path) with the bot's token from
 * TEAMS_LOGIN_URL, and the turn machinery that answers an invoke within its HTTP request. The
 * inbound token is checked before (`verify.ts`, the contract's rules); the adapter receives the
 * checked claims and does not check them again. MSAL is given the authority's metadata and its
 * host in `knownAuthorities`, so it asks no other host (no instance discovery). The bot's token is
 * asked for once and kept (`bot-token.ts`); the Bot Connector client of a `serviceUrl`
 * (an HTTP pipeline the library would build again for every activity) is built once and reused.
 */
export class TeamsConnector extends CloudAdapter {
  private readonly clients = new Map<string, Promise<ConnectorClient>>();
  private sharedFactory: ConnectorFactory | undefined;

  constructor(private readonly config: TeamsConfig) {
    const login = config.loginUrl;
    const msal = new ConfidentialClientApplication({
      auth: {
        clientId: config.appId,
        clientSecret: config.appPassword,
        authority: login,
        knownAuthorities: [new URL(login).host],
        authorityMetadata: JSON.stringify({
          token_endpoint: `${login}/oauth2/v2.0/token`,
          authorization_endpoint: `${login}/oauth2/v2.0/authorize`,
          end_session_endpoint: `${login}/oauth2/v2.0/logout`,
          issuer: `${login}/v2.0`,
          jwks_uri: `${login}/discovery/v2.0/keys`,
        }),
      },
    });
    super(
      new ConfigurationBotFrameworkAuthentication(
        {
          MicrosoftAppId: config.appId,
          MicrosoftAppTenantId: config.tenantId,
          ToChannelFromBotOAuthScope: CONNECTOR_SCOPE,
          ToChannelFromBotLoginUrl: login,
          ToBotFromChannelOpenIdMetadataUrl: config.openIdUrl,
        },
        // The same class in its ESM and CommonJS typings (botframework-connector is CommonJS).
        new KeptTokenCredentialsFactory(config.appId, msal as unknown as MsalClient),
      ),
    );
  }

  /** Runs one activity whose token passed the checks: the turn, and an invoke's answer. */
  async processChecked(
    claims: VerifiedClaims,
    activity: Activity,
    logic: (context: TurnContext) => Promise<void>,
  ): Promise<InvokeResponse | undefined> {
    const identity = new ClaimsIdentity(
      [
        { type: "aud", value: this.config.appId },
        { type: "appid", value: String(claims.appid ?? "") },
        { type: "ver", value: String(claims.ver ?? "1.0") },
        { type: "serviceurl", value: claims.serviceurl },
      ],
      true,
    );
    return this.processActivity(
      {
        audience: CONNECTOR_SCOPE,
        claimsIdentity: identity,
        callerId: "urn:botframework:azure",
        connectorFactory: this.reusingClients(identity),
      },
      activity,
      logic,
    );
  }

  /** The library's connector factory (it depends only on the bot's own app id), keeping one client per serviceUrl. */
  private reusingClients(identity: ClaimsIdentity): ConnectorFactory {
    if (this.sharedFactory) return this.sharedFactory;
    const made = this.botFrameworkAuthentication.createConnectorFactory(identity);
    const clients = this.clients;
    this.sharedFactory = {
      create(serviceUrl: string, audience?: string): Promise<ConnectorClient> {
        const key = `${audience ?? ""} ${serviceUrl}`;
        let client = clients.get(key);
        if (client === undefined) {
          client = made.create(serviceUrl, audience);
          clients.set(key, client);
          client.catch(() => clients.delete(key));
        }
        return client;
      },
    };
    return this.sharedFactory;
  }
}
