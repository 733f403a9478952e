import { useState } from 'react';
import { Notice } from '../../components/states';
import { useMe } from '../../session';
import { ApproveDevice } from './approve-device';
import { CliInstall } from './cli-install';
import { DeviceList } from './device-list';
import { ManualSession, type StartedSession } from './manual-session';
import { PublishLog } from './publish-log';
import { SessionList } from './session-list';
import { StartedSessionPanel } from './started-session';

export function PublishingPage({ userCode }: { userCode: string }) {
  const me = useMe();
  const [tick, setTick] = useState(0);
  const [started, setStarted] = useState<StartedSession | null>(null);
  const [ended, setEnded] = useState(false);
  const changed = () => setTick((t) => t + 1);
  return (
    <section>
      <h1 tabIndex={-1}>Publishing</h1>
      <p className="lede">
        Every upload needs a short-lived publish session for one repository. Build tools get one with an enrolled device key; CI gets one
        with its identity token; you can also start one here with a fresh second-factor check.
      </p>
      {me?.kind === 'oidc' && <Notice tone="warn">Single sign-on accounts cannot publish by device or by hand; CI publishes through trust policies.</Notice>}
      <CliInstall />
      <div className="two-col">
        <ApproveDevice initialCode={userCode} onApproved={changed} />
        <ManualSession
          onStarted={(s) => {
            setStarted(s);
            setEnded(false);
            changed();
          }}
        />
      </div>
      {ended && <Notice tone="success">The session is closed; its token opens nothing any more.</Notice>}
      {started && (
        <StartedSessionPanel
          started={started}
          onClose={() => setStarted(null)}
          onEnded={() => {
            setStarted(null);
            setEnded(true);
            changed();
          }}
        />
      )}
      <DeviceList key={`d${tick}`} />
      <SessionList key={`s${tick}`} />
      {me?.is_admin && <PublishLog key={`l${tick}`} />}
    </section>
  );
}
