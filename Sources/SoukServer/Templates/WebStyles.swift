/// The one stylesheet of the storefront, the account pages and the console (served as
/// `Assets.css`). Colours meet WCAG 2.1 AA contrast on their backgrounds (text ≥ 4.5:1, focus
/// rings and control borders ≥ 3:1); focus is always visible; the layout is one column on a
/// phone-sized screen. No external fonts or images.
enum WebStyles {
    static let css = """
        :root{--ink:#1d1d1f;--muted:#4a4a4f;--line:#8e8e93;--soft:#f2f2f5;--accent:#0058b0;--accent-ink:#fff;--danger:#a4161a;--ok:#1b5e20;--focus:#1d4ed8}
        *{box-sizing:border-box}
        html{font-size:100%}
        body{margin:0;font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",system-ui,"DejaVu Sans",sans-serif;color:var(--ink);background:#fff;line-height:1.5}
        a{color:var(--accent)}a:hover{text-decoration-thickness:2px}
        :focus-visible{outline:3px solid var(--focus);outline-offset:2px}
        .skip{position:absolute;left:-999px;top:0;background:var(--ink);color:#fff;padding:.5rem 1rem;z-index:10}.skip:focus{left:0}
        .visually-hidden{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
        header.site{border-bottom:1px solid #d2d2d7;background:#fbfbfd}
        header.site nav{max-width:68rem;margin:0 auto;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.6rem 1.2rem;align-items:center}
        header.site .brand{font-weight:700;font-size:1.15rem;color:var(--ink);text-decoration:none;margin-right:auto}
        header.site form.search{flex:1 1 14rem;max-width:24rem;margin:0}
        header.site input[type=search]{width:100%;padding:.45rem .7rem;font-size:1rem;border:1px solid var(--line);border-radius:.5rem}
        main{max-width:68rem;margin:0 auto;padding:1.2rem 1rem 3rem}
        main.narrow,.narrow{max-width:28rem}
        footer.site{max-width:68rem;margin:0 auto;padding:1rem;color:var(--muted);font-size:.9rem;border-top:1px solid #d2d2d7}
        h1{font-size:1.6rem;line-height:1.25;margin:.4rem 0 .8rem}h2{font-size:1.2rem;margin:1.8rem 0 .6rem}h3{font-size:1rem;margin:1rem 0 .3rem}
        label{display:block;margin:.8rem 0 .3rem;font-weight:600}
        input[type=email],input[type=password],input[type=text],input[type=number],input[type=url],input[type=date],input[type=file],select,textarea{width:100%;padding:.55rem;font-size:1rem;border:1px solid var(--line);border-radius:.4rem;background:#fff;color:var(--ink)}
        textarea{min-height:6rem}
        button,.button{display:inline-block;margin-top:1rem;padding:.6rem 1.1rem;font-size:1rem;font-weight:600;background:var(--accent);color:var(--accent-ink);border:2px solid var(--accent);border-radius:.5rem;text-decoration:none;cursor:pointer}
        button.secondary,.button.secondary{background:#fff;color:var(--accent)}
        button.danger{background:var(--danger);border-color:var(--danger)}
        form.inline{display:inline}form.inline button{margin-top:.3rem}
        label.inline-label{display:inline;font-weight:600;margin-left:.4rem}
        .wide button[type=submit]{width:100%}
        .error{background:#fde8e8;color:#7a0d10;padding:.6rem .8rem;border-radius:.4rem;border-left:4px solid var(--danger)}
        .notice{background:#e8f4ea;color:#14451a;padding:.6rem .8rem;border-radius:.4rem;border-left:4px solid var(--ok)}
        .hint,.muted{color:var(--muted)}
        a.install{display:block;text-align:center;padding:.7rem;background:var(--accent);color:#fff;border-radius:.5rem;text-decoration:none;font-weight:600}
        .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:1rem;padding:0;list-style:none}
        .card{display:flex;gap:.8rem;align-items:flex-start;padding:.8rem;border:1px solid #d2d2d7;border-radius:.8rem;background:#fff}
        .card a{text-decoration:none;color:var(--ink)}.card a:hover .name{text-decoration:underline}
        .card .name{font-weight:600;display:block}.card .meta{color:var(--muted);font-size:.9rem;display:block}
        .icon{border-radius:22%;background:var(--soft);flex:none}
        .chips{display:flex;flex-wrap:wrap;gap:.5rem;padding:0;list-style:none}
        .chips a{display:inline-block;padding:.3rem .8rem;border:1px solid var(--line);border-radius:1rem;text-decoration:none;color:var(--ink)}
        .app-head{display:flex;gap:1.2rem;align-items:flex-start;flex-wrap:wrap}
        .screens{display:flex;gap:.8rem;overflow-x:auto;padding:.2rem 0 .8rem;list-style:none}
        .screens img{border:1px solid #d2d2d7;border-radius:.8rem;height:auto;max-height:28rem}
        dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
        table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid #d2d2d7;vertical-align:top}
        th{font-weight:600;background:var(--soft)}
        .table-wrap{overflow-x:auto;position:relative}td code,p code{overflow-wrap:anywhere}
        .pager{display:flex;gap:1rem;justify-content:space-between;margin-top:1.2rem}
        .price{font-weight:700}
        nav.console{display:flex;flex-wrap:wrap;gap:.4rem 1rem;margin:0 0 1rem;padding:.5rem 0;border-bottom:1px solid #d2d2d7}
        .chart{max-width:100%;height:auto}
        table.cohorts td{text-align:right;white-space:nowrap}table.cohorts caption{text-align:left;margin-bottom:.4rem;color:var(--muted)}
        .heat-0{background:#f5f8fc}.heat-1{background:#e3ecf7}.heat-2{background:#d0def1}.heat-3{background:#bccfea}.heat-4{background:#a7c0e3}
        .heat-5{background:#3670b5;color:#fff}.heat-6{background:#3369ad;color:#fff}.heat-7{background:#285a9a;color:#fff}.heat-8{background:#1d4a84;color:#fff}.heat-9{background:#12396b;color:#fff}
        code,pre{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.92rem}
        pre{background:var(--soft);padding:.6rem;border-radius:.4rem;overflow-x:auto}
        ins{background:#e8f4ea;text-decoration:none}del{background:#fde8e8}
        progress{width:100%;height:1.2rem}
        @media (max-width:40rem){h1{font-size:1.35rem}.grid{grid-template-columns:1fr}dl.facts{grid-template-columns:1fr}}
        .card>div{min-width:0;overflow-wrap:anywhere}.screens li{flex:none}.app-head .price{margin:.2rem 0}
        textarea.code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.9rem}pre.diff ins,pre.diff del{display:inline}
        figure.chart-box{margin:1rem 0 1.6rem}figure.chart-box details{margin-top:.3rem}summary{cursor:pointer;color:var(--accent)}
        ol.timeline{list-style:none;padding:0;margin:.4rem 0}ol.timeline li{padding:.25rem 0;border-bottom:1px solid #e5e5ea}
        .tag{display:inline-block;min-width:5.5rem;font-size:.85rem;font-weight:600;color:var(--muted)}
        ol.audit{list-style:none;padding:0}ol.audit>li{border-bottom:1px solid #e5e5ea;padding:.5rem 0}ol.audit p{margin:0 0 .2rem}
        ul.changes{margin:0;padding-left:1.2rem;overflow-wrap:anywhere}
        img.thumb{border:1px solid #d2d2d7;border-radius:.6rem;max-width:12rem;height:auto}input.short{display:inline-block;width:auto;max-width:14rem;margin-top:.3rem}
        """
}

/// The pages' scripts, each an `Asset` (served by Souk, named by a `<script src>`; the page's
/// `script-src` is then `'self'`). Pages work without them; they only add progress and polish.
enum WebScripts {
    /// Upload progress for the console's `<form class="upload">`: the same POST the form makes
    /// without JavaScript, sent by XMLHttpRequest so its `<progress>` moves; the page the server
    /// redirects to then replaces this one (a refusal's page replaces the body). Without JavaScript
    /// the form still works.
    static let upload = Asset(stem: "upload", ext: "js", contentType: "text/javascript; charset=utf-8", body: """
        "use strict";
        document.querySelectorAll("form.upload").forEach(function (form) {
          var bar = form.querySelector("progress"), status = form.querySelector("[role=status]");
          form.addEventListener("submit", function (event) {
            event.preventDefault();
            var request = new XMLHttpRequest(), button = form.querySelector("button[type=submit]");
            request.open("POST", form.action);
            request.upload.addEventListener("progress", function (e) {
              if (!e.lengthComputable) { return; }
              bar.max = e.total; bar.value = e.loaded;
              status.textContent = "Uploading: " + Math.floor(100 * e.loaded / e.total) + " %";
            });
            request.upload.addEventListener("load", function () { status.textContent = "Uploaded; checking the package…"; });
            request.addEventListener("load", function () {
              if (request.status < 400) { window.location.assign(request.responseURL); return; }
              // A refusal (a bad package): show the page the server answered; its form then posts without script.
              var answer = new DOMParser().parseFromString(request.responseText, "text/html");
              document.title = answer.title; document.body.replaceWith(answer.body);
            });
            request.addEventListener("error", function () {
              button.disabled = false; status.textContent = "The upload failed (the connection was lost). Try again.";
            });
            button.disabled = true; bar.hidden = false; status.textContent = "Uploading…";
            request.send(new FormData(form));
          });
        });
        """)

    static let all: [Asset] = [upload]
}
