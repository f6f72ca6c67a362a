/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { Layout, type FooterLink } from "./Layout.js";

export function serviceFooter(publicBaseUrl: string): FooterLink[] {
  return [
    { href: `${publicBaseUrl}/terms`, label: "Terms" },
    { href: `${publicBaseUrl}/privacy`, label: "Privacy" },
  ];
}

/** Unknown and draft campaigns look the same. */
export function NotFoundPage(props: { publicBaseUrl: string }) {
  return (
    <Layout title="Not found" footer={serviceFooter(props.publicBaseUrl)}>
      <h1>Not found</h1>
      <p>There is no public campaign at this address. Check the link you followed.</p>
    </Layout>
  );
}

const PLACEHOLDER = "This is the service's placeholder page: the operator replaces it with their own text before running real campaigns.";

/** The service's default terms, linked by campaigns without their own. */
export function TermsPage(props: { publicBaseUrl: string }) {
  return (
    <Layout title="Terms" footer={serviceFooter(props.publicBaseUrl)}>
      <h1>Terms</h1>
      <p class="held">{PLACEHOLDER}</p>
      <p>
        Campaigns on this service are run by the apps that link to them. Each app decides who wins or who enters; this service decides only what each
        winner receives, from the prize table shown on the campaign's page, and publishes a proof of every draw.
      </p>
      <p>Prizes are paid to the app running the campaign, which pays its own winners. Large prizes are checked and paid by hand.</p>
      <p>In the test environment draws use test randomness and nothing is paid for real.</p>
    </Layout>
  );
}

/** The service's default privacy notice, linked by campaigns without their own. */
export function PrivacyPage(props: { publicBaseUrl: string }) {
  return (
    <Layout title="Privacy" footer={serviceFooter(props.publicBaseUrl)}>
      <h1>Privacy</h1>
      <p class="held">{PLACEHOLDER}</p>
      <p>
        The service receives from each app an id per winner or entrant, chosen so that it cannot be linked to a person, and optionally a display name
        and an avatar link. Ids and names are published in each draw's proof; names and avatars are shown on the campaign page.
      </p>
      <p>
        Campaign pages set no cookies and load avatars without sending where you came from. Their scripts run in your browser only when you ask: “Check
        this draw here” fetches the draw's proof from this service and reads the network's public records through its RPC endpoint; “Look up your
        entry” fetches the public proofs of the draws shown and looks for your id in them in your browser, without sending the id anywhere.
      </p>
    </Layout>
  );
}
