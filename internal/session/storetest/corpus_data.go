package storetest

import (
	"fmt"
	"strings"
)

// toolCall returns a tool name, its JSON arguments and an output of the
// shape that tool produces, 100 bytes to a few kilobytes long.
func (c *Corpus) toolCall() (name, args, out string) {
	var b strings.Builder
	switch c.rng.IntN(5) {
	case 0:
		dir := c.path()
		args = fmt.Sprintf(`{"command":"ls -la %s"}`, dir)
		for range 3 + c.rng.IntN(25) {
			fmt.Fprintf(&b, "-rw-r--r-- 1 hermes staff %6d Dec %2d %02d:%02d %s\n",
				c.rng.IntN(90000), 1+c.rng.IntN(28), c.rng.IntN(24), c.rng.IntN(60), c.path())
		}
		return "terminal", args, b.String()
	case 1:
		args = fmt.Sprintf(`{"command":"go test ./%s/..."}`, c.pick(dirs))
		for range 2 + c.rng.IntN(12) {
			fmt.Fprintf(&b, "ok  \tgithub.com/acme/%s/%s\t%d.%03ds\n", c.pick(dirs), c.pick(dirs), c.rng.IntN(9), c.rng.IntN(1000))
		}
		if c.rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "--- FAIL: Test%s (0.%02ds)\n    %s:%d: %s\n", strings.ToUpper(c.word(enWords)[:1])+c.word(enWords)[1:],
				c.rng.IntN(99), c.path(), c.rng.IntN(400), c.prose(1, 1))
		}
		return "terminal", args, b.String()
	case 2:
		q := c.pick(c.topic.en) + " " + c.word(enWords)
		if c.chinese {
			q = c.pick(c.topic.zh) + " " + c.pick(c.topic.en)
		}
		args = fmt.Sprintf(`{"query":%q}`, q)
		b.WriteString(`{"results":[`)
		for i := range 2 + c.rng.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"title":%q,"url":"https://%s.example.com/%s","snippet":%q}`,
				c.prose(1, 1), c.word(enWords), c.hex(8), c.prose(1, 2))
		}
		b.WriteString(`]}`)
		return "web_search", args, b.String()
	case 3:
		p := c.path()
		args = fmt.Sprintf(`{"path":%q}`, p)
		for i := range 5 + c.rng.IntN(30) {
			switch c.rng.IntN(4) {
			case 0:
				fmt.Fprintf(&b, "%4d\t// %s\n", i+1, c.prose(1, 1))
			case 1:
				fmt.Fprintf(&b, "%4d\tfunc %s%s(ctx context.Context, id string) error {\n", i+1, c.word(enWords), c.pick(c.topic.en))
			default:
				fmt.Fprintf(&b, "%4d\t\tif err := %s.%s(ctx); err != nil { return fmt.Errorf(\"%s: %%w\", err) }\n",
					i+1, c.word(enWords), c.word(enWords), c.word(enWords))
			}
		}
		return "read_file", args, b.String()
	default:
		args = fmt.Sprintf(`{"command":"git log --oneline -n 8 -- %s"}`, c.path())
		for range 3 + c.rng.IntN(6) {
			fmt.Fprintf(&b, "%s %s\n", c.hex(7), c.prose(1, 1))
		}
		return "terminal", args, b.String()
	}
}

// Words by rough frequency, most frequent first.
var enWords = strings.Fields(`
the to and a of is in it that for you this with on be not are we have can
if but as do will at so from or what an was all there use just should need
file run check error test code config update server build then add make see
one new now also set first get like change fix data time user work version
output command line path value name list start log port service function type
return default install local remote option read write open close create delete
directory branch commit merge release debug issue cache memory request response
query table index field column schema key token model message session agent tool
result status job task queue worker thread process signal timeout retry limit
upload download stream buffer parse format encode decode convert compare filter
sort search match replace split join copy move rename backup restore deploy
rollback monitor alert metric dashboard trace span latency throughput benchmark
profile allocate release lock unlock wait notify schedule cron daily weekly
network proxy gateway route host domain certificate secret password account
permission group role policy audit report export import sync mirror archive
compress extract package module library dependency vendor patch upgrade
downgrade migrate seed fixture mock stub fake assert expect verify validate
sanitize escape quote unquote trim pad wrap unwrap flatten nest merge diff
`)

var zhWords = strings.Fields(`
我们 这个 可以 需要 一下 问题 已经 然后 因为 所以 如果 现在 还是 没有 一个
应该 看看 检查 文件 配置 服务 运行 错误 测试 代码 更新 版本 用户 数据 时间
输出 命令 路径 日志 端口 函数 返回 默认 安装 本地 远程 选项 读取 写入 打开
关闭 创建 删除 目录 分支 提交 合并 发布 调试 缓存 内存 请求 响应 查询 索引
字段 模型 消息 会话 工具 结果 状态 任务 队列 进程 信号 超时 重试 限制 上传
下载 解析 格式 编码 转换 比较 过滤 排序 搜索 匹配 替换 备份 恢复 部署 回滚
监控 告警 指标 延迟 吞吐 基准 锁定 等待 通知 计划 每天 网络 代理 网关 路由
证书 密钥 密码 账号 权限 审计 报告 导出 导入 同步 归档 压缩 依赖 补丁 升级
`)

var dirs = strings.Fields(`cmd internal pkg api web cli store session tool agent llm config
cron gateway docs scripts deploy bench testdata vendor util auth billing search`)

// topics are what sessions are about; the benchmark queries come from
// them ("kubernetes", "性能优化", "迁移").
var topics = []topic{
	{strings.Fields("kubernetes cluster node pod helm ingress"), strings.Fields("集群升级 节点 容器编排 滚动发布")},
	{strings.Fields("postgres migration schema rollback vacuum"), strings.Fields("数据库迁移 迁移脚本 表结构 回滚方案")},
	{strings.Fields("latency profiling pprof allocation hotpath"), strings.Fields("性能优化 火焰图 内存分配 热点函数")},
	{strings.Fields("telegram bot webhook chat reply"), strings.Fields("机器人 消息推送 群聊 回复模板")},
	{strings.Fields("invoice billing stripe refund subscription"), strings.Fields("账单 退款 订阅 发票")},
	{strings.Fields("nginx tls certificate letsencrypt renewal"), strings.Fields("证书续期 反向代理 域名解析")},
	{strings.Fields("react component hooks state render"), strings.Fields("前端组件 页面渲染 状态管理")},
	{strings.Fields("backup restic snapshot retention offsite"), strings.Fields("备份策略 快照 数据恢复 异地存储")},
	{strings.Fields("python virtualenv pip wheel poetry"), strings.Fields("虚拟环境 依赖冲突 打包发布")},
	{strings.Fields("docker image layer registry compose"), strings.Fields("镜像构建 镜像仓库 容器网络")},
	{strings.Fields("cron schedule report email digest"), strings.Fields("定时任务 日报 邮件摘要")},
	{strings.Fields("sqlite wal checkpoint fts5 trigram"), strings.Fields("全文检索 中文分词 数据迁移")},
	{strings.Fields("grafana prometheus alertmanager slo"), strings.Fields("监控大盘 告警规则 服务水平")},
	{strings.Fields("terraform aws vpc subnet iam"), strings.Fields("云资源 网络规划 权限策略")},
	{strings.Fields("llm prompt context compression tokens"), strings.Fields("上下文压缩 提示词 模型调用")},
	{strings.Fields("ssh rsync deploy key bastion"), strings.Fields("远程登录 跳板机 密钥管理")},
}
