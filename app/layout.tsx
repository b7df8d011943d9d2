import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import { KeyboardShortcuts } from "@/components/nav/keyboard-shortcuts";
import { TopBar } from "@/components/nav/top-bar";
import { getSessionUser } from "@/lib/core/auth/session";
import { THEME_SCRIPT } from "@/lib/core/theme/theme";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Payments Analytics", template: "%s · Payments Analytics" },
  description: "Order summaries, cohorts and BIN routing for subscription merchants.",
  icons: { icon: { url: "/favicon.svg", type: "image/svg+xml" } },
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const user = await getSessionUser();
  // The page's CSP admits inline scripts by this request's nonce only (proxy.ts).
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    // The theme script sets <html>'s class and choice before hydration: React is told the difference is expected.
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* Before the body is parsed, so the first paint is already in the reader's scheme. */}
        <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-screen font-sans">
        <a
          href="#content"
          className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-blue-800 focus:shadow focus:outline-2 focus:outline-blue-700"
        >
          Skip to main content
        </a>
        {user ? <TopBar user={user} /> : null}
        <div id="content" tabIndex={-1} className="outline-none">
          {children}
        </div>
        <KeyboardShortcuts />
      </body>
    </html>
  );
}
