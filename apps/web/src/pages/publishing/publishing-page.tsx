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
  // SSO accounts cannot publish by device or by hand (no second factor in Trove): no forms that always fail.
  const local = me?.kind === 'local';
  return (
    <section>
      <h1 tabIndex={-1}>Publishing</h1>
      <p className="lede">
        Every upload needs a short-lived publish session for one repository. Build tools get one with an enrolled device key; CI gets one
        with its identity token{local ? '; you can also start one here with a fresh second-factor check' : ''}.
      </p>
      {!local && (
        <Notice tone="warn">
          Single sign-on accounts cannot approve devices or start publish sessions by hand: both need a second factor, which single sign-on
          accounts do not have in Trove.{' '}
          {userCode && (
            <>
              To approve the code <code>{userCode}</code>, sign out and sign in with the local account that publishes from that device.{' '}
            </>
          )}
          CI publishes through {me?.is_admin ? <a href="#/admin/trusts">CI trust policies</a> : 'CI trust policies'}.
        </Notice>
      )}
      {local && <CliInstall />}
      {local && (
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
      )}
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
      {local && <SessionList key={`s${tick}`} />}
      {me?.is_admin && <PublishLog key={`l${tick}`} />}
    </section>
  );
}
