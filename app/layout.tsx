import type { Metadata, Viewport } from "next";
import { TopBar } from "@/components/nav/top-bar";
import { getSessionUser } from "@/lib/auth/session";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Payments Analytics", template: "%s · Payments Analytics" },
  description: "Order summaries, cohorts and BIN routing for subscription merchants.",
  icons: { icon: { url: "/favicon.svg", type: "image/svg+xml" } },
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const user = await getSessionUser();
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        {user ? <TopBar user={user} /> : null}
        {children}
      </body>
    </html>
  );
}
