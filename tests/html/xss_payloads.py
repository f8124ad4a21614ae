"""Script payloads a student can put in a notebook, for the sanitiser's tests.

Each payload, if its script ran, would set ``window.__pwned`` (or the page title, or call
``alert``) to a value containing ``PWN``; the tests look for ``PWN`` in every script, event
handler, script link and active tag of the rendered page. ``MARKDOWN`` goes into a written
answer (or a ``text/markdown`` output), ``HTML`` into ``text/html`` outputs.
"""

from __future__ import annotations

HTML = {
    "script": "<script>window.__pwned='PWN-script'</script>",
    "img_onerror": "<img src=x onerror=\"window.__pwned='PWN-img'\">",
    "svg_onload": "<svg onload=\"window.__pwned='PWN-svg'\"><circle r=4 /></svg>",
    "iframe_js": "<iframe src=\"javascript:top.__pwned='PWN-iframe'\"></iframe>",
    "iframe_srcdoc": "<iframe srcdoc=\"<script>top.__pwned='PWN-srcdoc'</script>\"></iframe>",
    "a_javascript": "<a href=\"javascript:window.__pwned='PWN-a'\">click</a>",
    "a_entity": "<a href=\"jav&#x61;script:window.__pwned='PWN-ent'\">click</a>",
    "a_tab_entity": "<a href=\"java&#09;script:window.__pwned='PWN-tab'\">click</a>",
    "a_spaces": "<a href=\"  javascript:window.__pwned='PWN-sp'\">click</a>",
    "style_hide": "<style>.score{display:none} body{background:url('PWN-css')}</style>",
    "style_attr": "<div style=\"background:url(javascript:window.__pwned='PWN-style')\">x</div>",
    "meta_refresh": "<meta http-equiv=\"refresh\" "
                    "content=\"0;url=javascript:top.__pwned='PWN-meta'\">",
    "form": "<form action=\"/formgrader/api/grade/PWN-form\" method=\"post\">"
            "<input name=score value=99><button>ok</button></form>",
    "object": "<object data=\"javascript:top.__pwned='PWN-object'\"></object>",
    "embed": "<embed src=\"javascript:top.__pwned='PWN-embed'\">",
    "details_ontoggle": "<details open ontoggle=\"window.__pwned='PWN-details'\">d</details>",
    "body_onload": "<body onload=\"window.__pwned='PWN-body'\">",
    "base": "<base href=\"http://127.0.0.1:9/PWN-base/\">",
    "link_import": "<link rel=stylesheet href=\"http://127.0.0.1:9/PWN-link.css\">",
    "math_xlink": "<math><maction actiontype=statusline "
                  "xlink:href=\"javascript:window.__pwned='PWN-math'\">m</maction></math>",
    "input_autofocus": "<input autofocus onfocus=\"window.__pwned='PWN-focus'\">",
    "video_source": "<video><source onerror=\"window.__pwned='PWN-video'\"></video>",
    "marquee": "<marquee onstart=\"window.__pwned='PWN-marquee'\">m</marquee>",
    "comment_breakout": "<!--><img src=x onerror=\"window.__pwned='PWN-comment'\">-->",
    "noscript_mxss": "<noscript><p title=\"</noscript><img src=x "
                     "onerror=window.__pwned='PWN-noscript'>\"></noscript>",
    "img_remote": "<img src=\"http://127.0.0.1:9/PWN-beacon.png\">",
    "title": "<title>PWN-title</title>",
    "template": "<template><script>window.__pwned='PWN-template'</script></template>",
}

MARKDOWN = {
    **{f"raw_{name}": f"My answer.\n\n{payload}\n\nMore text." for name, payload in HTML.items()},
    "md_link": "[see here](javascript:window.__pwned='PWN-mdlink')",
    "md_link_entity": "[see here](jav&#97;script:window.__pwned='PWN-mdent')",
    "md_link_escape": "[see here](javascript\\:window.__pwned='PWN-mdesc')",
    "md_link_case": "[see here](JaVaScRiPt:window.__pwned='PWN-mdcase')",
    "md_image": "![fig](javascript:window.__pwned='PWN-mdimg')",
    "md_reference": "[see][r]\n\n[r]: javascript:window.__pwned='PWN-mdref'",
    "md_autolink": "<javascript:window.__pwned='PWN-autolink'>",
    "md_data_link": "[x](data:text/html;base64,PHNjcmlwdD5QV048L3NjcmlwdD4=) PWN-data",
    "md_vbscript": "[x](vbscript:msgbox('PWN-vb'))",
    "mathjax_href": "$\\href{javascript:window.__pwned='PWN-mjhref'}{x}$",
    "mathjax_require": "$\\require{PWN-require}$ and $$\\class{PWN-class}{x}$$",
    "mathjax_bbox": "$\\bbox[background:url(http://127.0.0.1:9/PWN-bbox)]{x}$",
    "dollar_space": "$ <img src=x onerror=\"window.__pwned='PWN-dollar'\"> $",
    "code_span_mismatch": "``<img src=x onerror=\"window.__pwned='PWN-tick'\">`",
    "fence_unclosed": "```\n<img src=x onerror=\"window.__pwned='PWN-fence'\">",
    "html_in_list": "- item\n\n  <img src=x onerror=\"window.__pwned='PWN-list'\">",
    "html_in_quote": "> <script>window.__pwned='PWN-quote'</script>",
    "md_link_amp": "[see here](jav&amp;#97;script:window.__pwned='PWN-mdamp')",
    "md_image_remote": "![fig](http://127.0.0.1:9/PWN-mdbeacon.png)",
    "md_image_escaped": "\\\\![fig](http://127.0.0.1:9/PWN-mdbslash.png)",
    "mermaid": "```mermaid\ngraph TD\nA[\"<img src=x onerror=window.__pwned='PWN-mermaid'>\"]\n```",
    "entity_tag": "&lt;script&gt;PWN-entity-text&lt;/script&gt; and &#60;b&#62;",
}

#: A written answer a TA must still be able to read after sanitising: (markdown, words that
#: must appear in the rendered text).
HONEST_ANSWER = (
    "Kernel PCA works with $K = \\Phi\\Phi^\\top$, and every eigenvalue satisfies "
    "$0 < \\lambda_i$ or $\\lambda_i = 0$.\n\n"
    "$$\\tilde K = K - \\mathbf{1}_n K - K \\mathbf{1}_n + \\mathbf{1}_n K \\mathbf{1}_n$$\n\n"
    "In code, `if n < 2: raise ValueError` guards it; also a<b & c > d, **bold**."
)
HONEST_WORDS = ("Kernel PCA works with", "\\lambda_i", "if n < 2: raise ValueError",
                "a<b & c > d", "\\tilde K")
